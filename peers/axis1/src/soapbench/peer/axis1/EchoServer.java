package soapbench.peer.axis1;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.apache.axis.configuration.FileProvider;
import org.apache.axis.server.AxisServer;
import org.apache.axis.transport.http.SimpleAxisServer;

/**
 * The Axis 1.4 echo peer: Axis's own standalone HTTP server, SimpleAxisServer,
 * on a socket bound to BIND:PORT (ListenSocket), with the deployment install
 * produced (build/server-config.wsdd). Runs until the JVM is ended (SIGTERM).
 *
 * Usage: EchoServer PORT BIND WORKERS CONFIG_DIR
 */
public final class EchoServer {
    /** The command line, checked in one place (parse). */
    private static final class Config {
        /** TCP port to listen on, 1..65535. */
        int port;
        /** Address to bind: only this interface is served. */
        InetAddress bind;
        /** Most connections served at once: SimpleAxisServer runs one thread per connection. */
        int workers;
        /** Directory holding server-config.wsdd and echo.wsdl. */
        File configDir;
    }

    /** The service's name in the deployment: WSDL2Java names it after the WSDL's port. */
    private static final String SERVICE = "EchoPort";

    /** A worker waits this long for request bytes before it closes the connection. */
    private static final int READ_TIMEOUT_MILLIS = 5000;

    /** SimpleAxisServer without HTTP sessions: no Set-Cookie header, no session table per request. */
    private static final class SessionlessAxisServer extends SimpleAxisServer {
        SessionlessAxisServer(int workers) {
            super(workers, 1);
        }

        @Override
        protected boolean isSessionUsed() {
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        Config config = parse(args);
        SimpleAxisServer server = new SessionlessAxisServer(config.workers);
        server.setMyConfig(new FileProvider(config.configDir.getPath(), "server-config.wsdd"));
        server.setServerSocket(new ListenSocket(new InetSocketAddress(config.bind, config.port),
            config.workers, READ_TIMEOUT_MILLIS));
        // Reads the deployment now: a broken one fails here, not at the first call.
        AxisServer engine = server.getAxisServer();
        SortRaceFix.apply(engine);
        // GET /echo?wsdl answers with the contract itself (install copies it), not
        // with the WSDL Axis would derive from the Java classes (no minOccurs="0").
        engine.getService(SERVICE).getServiceDescription()
            .setWSDLFile(new File(config.configDir, "echo.wsdl").getPath());
        server.setDoThreads(true);
        server.start(false);  // a non-daemon thread: the JVM runs until it is ended
        System.err.println("axis1: serving http://" + config.bind.getHostAddress() + ":" + config.port
            + "/echo with up to " + config.workers + " worker threads");
    }

    private static Config parse(String[] args) {
        if (args.length != 4) usage("expected 4 arguments, got " + args.length);
        Config config = new Config();
        config.port = intArgument("PORT", args[0], 1, 65535);
        try {
            config.bind = InetAddress.getByName(args[1]);
        } catch (UnknownHostException e) {
            usage("BIND: not an address: '" + args[1] + "'");
        }
        config.workers = intArgument("WORKERS", args[2], 1, 10000);
        config.configDir = new File(args[3]);
        if (!new File(config.configDir, "server-config.wsdd").isFile()) {
            usage("CONFIG_DIR: no server-config.wsdd in '" + args[3] + "'");
        }
        return config;
    }

    private static int intArgument(String name, String text, int min, int max) {
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) return value;
        } catch (NumberFormatException e) {
            // reported below
        }
        usage(name + ": expected " + min + ".." + max + ", got '" + text + "'");
        return 0;
    }

    private static void usage(String problem) {
        System.err.println("axis1: " + problem + "\nusage: EchoServer PORT BIND WORKERS CONFIG_DIR");
        System.exit(2);
    }
}
