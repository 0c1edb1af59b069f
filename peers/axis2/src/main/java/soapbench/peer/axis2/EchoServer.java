// Runs the echo service on Axis2's standalone HTTP server (SimpleHTTPServer,
// HttpCore 4 with a worker per connection), deployed from a repository
// directory that install writes (build/repo/services/EchoService/META-INF/).
//
//   java [-Dsoapbench.axis2.threads=N] ... soapbench.peer.axis2.EchoServer PORT BIND REPO
//
// Serves http://BIND:PORT/axis2/services/EchoService until SIGTERM.
package soapbench.peer.axis2;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.ConfigurationContextFactory;
import org.apache.axis2.transport.http.SimpleHTTPServer;
import org.apache.axis2.transport.http.server.HttpConnectionManager;
import org.apache.axis2.transport.http.server.HttpFactory;
import org.apache.axis2.transport.http.server.IOProcessor;
import org.apache.http.params.HttpParams;

public final class EchoServer {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            fail("usage: EchoServer PORT BIND REPO");
        }
        int port = 0;
        try {
            port = Integer.parseInt(args[0]);
        } catch (NumberFormatException e) {
            fail("PORT: expected 1..65535, got '" + args[0] + "'");
        }
        if (port < 1 || port > 65535) {
            fail("PORT: expected 1..65535, got '" + args[0] + "'");
        }
        InetAddress bind = null;
        try {
            bind = InetAddress.getByName(args[1]);
        } catch (UnknownHostException e) {
            fail("BIND: not an address: '" + args[1] + "'");
        }
        int threads = 0;
        String text = System.getProperty("soapbench.axis2.threads", "64");
        try {
            threads = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            fail("soapbench.axis2.threads: expected 1..1024, got '" + text + "'");
        }
        if (threads < 1 || threads > 1024) {
            fail("soapbench.axis2.threads: expected 1..1024, got '" + text + "'");
        }

        // The repository holds the one service; no axis2.xml given: Axis2's
        // default configuration (no modules engaged, no addressing).
        ConfigurationContext context =
                ConfigurationContextFactory.createConfigurationContextFromFileSystem(args[2], null);
        HttpFactory factory = new BoundHttpFactory(context, port, bind);
        // A worker per connection (HttpCore 4's blocking model): the pool
        // bounds the connections served at once, not the CPU used, so it is
        // sized for clients, not cores. Axis2's default is 25 core, 150 max.
        factory.setRequestCoreThreadPoolSize(threads);
        factory.setRequestMaxThreadPoolSize(threads);
        factory.setRequestTcpNoDelay(true);
        factory.setHostAddress(bind.getHostAddress());
        SimpleHTTPServer server = new SimpleHTTPServer(factory);
        server.start();
        System.out.printf("axis2: serving http://%s:%d/axis2/services/EchoService, %d workers%n",
                bind.getHostAddress(), port, threads);
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "shutdown"));
    }

    /** Axis2's HttpFactory, listening on one address (see BoundConnectionListener). */
    static final class BoundHttpFactory extends HttpFactory {
        private final InetAddress bind;

        BoundHttpFactory(ConfigurationContext context, int port, InetAddress bind) throws Exception {
            super(context, port);
            this.bind = bind;
        }

        @Override
        public IOProcessor newRequestConnectionListener(int port, HttpConnectionManager connections,
                                                        HttpParams params) throws IOException {
            return new BoundConnectionListener(bind, port, connections, params);
        }
    }

    private static void fail(String message) {
        System.err.println("axis2: " + message);
        System.exit(2);
    }

    private EchoServer() {
    }
}
