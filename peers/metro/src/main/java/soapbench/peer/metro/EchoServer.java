// Publishes EchoImpl with Endpoint.publish on the JDK's built-in HTTP server
// (com.sun.net.httpserver), Metro's own Java SE deployment (Endpoint.publish).
//
//   java [-Dsoapbench.metro.threads=N] [-Dsoapbench.metro.validate=true|false] \
//        ... soapbench.peer.metro.EchoServer PORT BIND
//
// Serves http://BIND:PORT/echo until SIGTERM. peers/metro/serve starts it.
package soapbench.peer.metro;

import com.sun.net.httpserver.HttpServer;
import com.sun.xml.ws.developer.SchemaValidationFeature;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import jakarta.xml.ws.Endpoint;

public final class EchoServer {
    /** Path of the endpoint, as the WSDL's address has it. */
    private static final String PATH = "/echo";
    /** Pending connections the kernel queues before accept (the JDK default is 50). */
    private static final int BACKLOG = 1024;

    /** The server's settings: two arguments and two system properties, checked in parse. */
    record Config(
            int port,          // TCP port to listen on; 0 picks a free one
            InetAddress bind,  // address to listen on (serve passes 127.0.0.1 unless told)
            int threads,       // worker threads that run the exchanges (soapbench.metro.threads)
            boolean validate)  // check each request against the WSDL's schema (soapbench.metro.validate)
    {
        static Config parse(String[] args) {
            if (args.length != 2) {
                fail("usage: EchoServer PORT BIND");
            }
            int port = parseInt("PORT", args[0], 0, 65535);
            InetAddress bind = null;
            try {
                bind = InetAddress.getByName(args[1]);
            } catch (UnknownHostException e) {
                fail("BIND: not an address: '" + args[1] + "'");
            }
            int threads = parseInt("soapbench.metro.threads",
                    System.getProperty("soapbench.metro.threads", "8"), 1, 1024);
            String validate = System.getProperty("soapbench.metro.validate", "false");
            if (!validate.equals("true") && !validate.equals("false")) {
                fail("soapbench.metro.validate: expected true or false, got '" + validate + "'");
            }
            return new Config(port, bind, threads, validate.equals("true"));
        }

        private static int parseInt(String name, String text, int min, int max) {
            try {
                int value = Integer.parseInt(text);
                if (value >= min && value <= max) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            fail(name + ": expected " + min + ".." + max + ", got '" + text + "'");
            return 0;
        }

        private static void fail(String message) {
            System.err.println("metro: " + message);
            System.exit(2);
        }
    }

    public static void main(String[] args) throws Exception {
        Config config = Config.parse(args);

        HttpServer server = HttpServer.create(new InetSocketAddress(config.bind(), config.port()), BACKLOG);
        // The server's executor runs each exchange: header parsing, the JAX-WS
        // handler, writing the response. Without one, the single dispatcher
        // thread that also accepts and selects would do all of it.
        ExecutorService pool = Executors.newFixedThreadPool(config.threads(), namedThreads());
        server.setExecutor(pool);

        // Schema validation is off by default, as in the RI: JAXB then reads an
        // out-of-range value or an unknown enumeration value leniently instead
        // of answering a fault. The feature turns on the RI's own validation.
        Endpoint endpoint = config.validate()
                ? Endpoint.create(new EchoImpl(), new SchemaValidationFeature())
                : Endpoint.create(new EchoImpl());
        endpoint.publish(server.createContext(PATH));
        server.start();
        System.out.printf("metro: serving http://%s:%d%s, %d worker threads, schema validation %s%n",
                config.bind().getHostAddress(), server.getAddress().getPort(), PATH, config.threads(),
                config.validate() ? "on" : "off");

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            endpoint.stop();
            server.stop(0);
            pool.shutdownNow();
        }, "shutdown"));
    }

    private static ThreadFactory namedThreads() {
        AtomicInteger next = new AtomicInteger();
        return task -> new Thread(task, "soap-worker-" + next.incrementAndGet());
    }

    private EchoServer() {
    }
}
