// Publishes EchoImpl with CXF's JAX-WS frontend on CXF's embedded Jetty
// transport (cxf-rt-transports-http-jetty), the way a CXF user runs a service
// outside a servlet container.
//
//   java [-Dsoapbench.cxf.threads=N] [-Dsoapbench.cxf.validate=true|false] \
//        ... soapbench.peer.cxf.EchoServer PORT BIND
//
// Serves http://BIND:PORT/echo until SIGTERM. peers/cxf/serve starts it.
package soapbench.peer.cxf;

import jakarta.xml.ws.Endpoint;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.cxf.Bus;
import org.apache.cxf.BusFactory;
import org.apache.cxf.jaxws.EndpointImpl;
import org.apache.cxf.transport.http_jetty.JettyHTTPServerEngine;
import org.apache.cxf.transport.http_jetty.JettyHTTPServerEngineFactory;
import org.apache.cxf.transport.http_jetty.ThreadingParameters;

public final class EchoServer {
    private static final String PATH = "/echo";

    record Config(int port, String host, int threads, boolean validate) {
        static Config parse(String[] args) {
            if (args.length != 2) {
                fail("usage: EchoServer PORT BIND");
            }
            int port = parseInt("PORT", args[0], 1, 65535);
            try {
                InetAddress.getByName(args[1]);
            } catch (UnknownHostException e) {
                fail("BIND: not an address: '" + args[1] + "'");
            }
            int threads = parseInt("soapbench.cxf.threads",
                    System.getProperty("soapbench.cxf.threads", "16"), 4, 1024);
            String validate = System.getProperty("soapbench.cxf.validate", "false");
            if (!validate.equals("true") && !validate.equals("false")) {
                fail("soapbench.cxf.validate: expected true or false, got '" + validate + "'");
            }
            return new Config(port, args[1], threads, validate.equals("true"));
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
            System.err.println("cxf: " + message);
            System.exit(2);
        }
    }

    public static void main(String[] args) throws Exception {
        Config config = Config.parse(args);
        Bus bus = BusFactory.getDefaultBus();

        // The Jetty engine for this host and port, made before the endpoint so
        // that its thread pool is ours: CXF's default is Jetty's (8..200
        // threads). A fixed pool: Jetty's selectors and acceptor take some of
        // the threads, the rest run requests; more than the 2 cores plus
        // waiting threads only adds context switches.
        JettyHTTPServerEngineFactory engines = bus.getExtension(JettyHTTPServerEngineFactory.class);
        JettyHTTPServerEngine engine = engines.createJettyHTTPServerEngine(config.host(), config.port(), "http");
        ThreadingParameters threading = new ThreadingParameters();
        threading.setMinThreads(config.threads());
        threading.setMaxThreads(config.threads());
        threading.setThreadNamePrefix("soap-worker");
        engine.setThreadingParameters(threading);
        // Jetty's default: keep-alive on, idle connections closed after 30 s.
        engine.setMaxIdleTime(30_000);

        String address = "http://" + hostOf(config.host()) + ":" + config.port() + PATH;
        EndpointImpl endpoint = (EndpointImpl) Endpoint.create(new EchoImpl());
        // Schema validation is off by default in CXF, as its users run it for
        // speed; on, a value outside its type gets a Client fault.
        if (config.validate()) {
            endpoint.getProperties().put("schema-validation-enabled", "true");
        }
        endpoint.publish(address);
        System.out.printf("cxf: serving %s, %d Jetty threads, schema validation %s%n", address,
                config.threads(), config.validate() ? "on" : "off");

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            endpoint.stop();
            bus.shutdown(true);
        }, "shutdown"));
    }

    private static String hostOf(String bind) {
        return bind.contains(":") ? "[" + bind + "]" : bind;
    }

    private EchoServer() {
    }
}
