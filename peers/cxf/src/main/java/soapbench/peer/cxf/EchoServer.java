// Publishes EchoImpl with CXF's JAX-WS frontend on CXF's embedded Jetty
// transport (cxf-rt-transports-http-jetty), the way a CXF user runs a service
// outside a servlet container.
//
//   java [-Dsoapbench.cxf.threads=N] [-Dsoapbench.cxf.validate=true|false] \
//        [-Dsoapbench.cxf.tls.cert=CERT.pem -Dsoapbench.cxf.tls.key=KEY.pem] \
//        ... soapbench.peer.cxf.EchoServer PORT BIND
//
// Serves http://BIND:PORT/echo until SIGTERM; with the certificate and key,
// https://BIND:PORT/echo (see PemKeys). peers/cxf/serve starts it.
package soapbench.peer.cxf;

import jakarta.xml.ws.Endpoint;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManager;
import org.apache.cxf.Bus;
import org.apache.cxf.BusFactory;
import org.apache.cxf.configuration.jsse.TLSServerParameters;
import org.apache.cxf.configuration.security.ClientAuthentication;
import org.apache.cxf.jaxws.EndpointImpl;
import org.apache.cxf.transport.http_jetty.JettyHTTPServerEngine;
import org.apache.cxf.transport.http_jetty.JettyHTTPServerEngineFactory;
import org.apache.cxf.transport.http_jetty.ThreadingParameters;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

public final class EchoServer {
    private static final String PATH = "/echo";

    // tlsCert and tlsKey: PEM files, both or neither (null: plain http).
    record Config(int port, String host, int threads, boolean validate, Path tlsCert, Path tlsKey) {
        boolean tls() {
            return tlsCert != null;
        }

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
            String cert = System.getProperty("soapbench.cxf.tls.cert");
            String key = System.getProperty("soapbench.cxf.tls.key");
            if ((cert == null) != (key == null)) {
                fail("soapbench.cxf.tls.cert and soapbench.cxf.tls.key go together");
            }
            return new Config(port, args[1], threads, validate.equals("true"),
                    cert == null ? null : Path.of(cert), key == null ? null : Path.of(key));
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

        static void fail(String message) {
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
        // TLS the way CXF documents it in code: TLSServerParameters for the
        // port, set before the engine exists, so that the engine CXF makes for
        // it is an https one (its protocol must then match the address's).
        if (config.tls()) {
            engines.setTLSServerParametersForPort(config.host(), config.port(), tlsParameters(config));
        }
        String scheme = config.tls() ? "https" : "http";
        JettyHTTPServerEngine engine = engines.createJettyHTTPServerEngine(config.host(), config.port(), scheme);
        ThreadingParameters threading = new ThreadingParameters();
        threading.setMinThreads(config.threads());
        threading.setMaxThreads(config.threads());
        threading.setThreadNamePrefix("soap-worker");
        engine.setThreadingParameters(threading);
        // Jetty's default: keep-alive on, idle connections closed after 30 s.
        engine.setMaxIdleTime(30_000);

        String address = scheme + "://" + hostOf(config.host()) + ":" + config.port() + PATH;
        EndpointImpl endpoint = (EndpointImpl) Endpoint.create(new EchoImpl());
        // Schema validation is off by default in CXF, as its users run it for
        // speed; on, a value outside its type gets a Client fault.
        if (config.validate()) {
            endpoint.getProperties().put("schema-validation-enabled", "true");
        }
        endpoint.publish(address);
        System.out.printf("cxf: serving %s, %d Jetty threads, schema validation %s%n", address,
                config.threads(), config.validate() ? "on" : "off");
        if (config.tls()) {
            describeTls(engine);
        }

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            endpoint.stop();
            bus.shutdown(true);
        }, "shutdown"));
    }

    // The server's TLS settings: our certificate and key; TLS 1.2 and 1.3 only;
    // otherwise the stack's defaults (see README.md).
    private static TLSServerParameters tlsParameters(Config config) {
        KeyManager[] keyManagers;
        try {
            keyManagers = PemKeys.keyManagers(config.tlsCert(), config.tlsKey());
        } catch (Exception e) {
            Config.fail("TLS: " + e.getMessage());
            return null;
        }
        TLSServerParameters tls = new TLSServerParameters();
        tls.setKeyManagers(keyManagers);
        // CXF passes no protocol list of its own: the JDK's, less Jetty's
        // exclusions (SSL*). JDK 17 disables TLS 1.0 and 1.1 in java.security;
        // excluding them here too keeps them off on a JDK that allows them.
        tls.setExcludeProtocols(List.of("TLSv1", "TLSv1.1"));
        // CXF's engine asks every client for a certificate ("want") unless told
        // otherwise: a request soapbench-server does not make and no client
        // here answers, so turn it off rather than measure it.
        ClientAuthentication clientAuth = new ClientAuthentication();
        clientAuth.setWant(false);
        clientAuth.setRequired(false);
        tls.setClientAuthentication(clientAuth);
        return tls;
    }

    // One line of the log with what Jetty really enabled, once it runs.
    private static void describeTls(JettyHTTPServerEngine engine) {
        if (engine.getConnector() instanceof AbstractConnector connector) {
            SslConnectionFactory ssl = connector.getConnectionFactory(SslConnectionFactory.class);
            if (ssl != null) {
                SslContextFactory.Server factory = ssl.getSslContextFactory();
                System.out.printf("cxf: TLS protocols %s; cipher suites %s%n",
                        Arrays.toString(factory.getSelectedProtocols()),
                        Arrays.toString(factory.getSelectedCipherSuites()));
            }
        }
    }

    private static String hostOf(String bind) {
        return bind.contains(":") ? "[" + bind + "]" : bind;
    }

    private EchoServer() {
    }
}
