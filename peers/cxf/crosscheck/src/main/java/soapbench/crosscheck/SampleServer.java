// CXF's sample server (org.apache.cxf.performance.complex_type.server.Server)
// on a port of our choosing: the sample's main() hard-codes 8080, which may be
// taken on a shared host. Everything else is the sample's: its Server
// constructor publishes its ServerImpl with Endpoint.publish on CXF's default
// bus and Jetty transport, with CXF's defaults.
//
//   java ... soapbench.crosscheck.SampleServer PORT BIND
//
// Serves http://BIND:PORT/cxf-benchmark-soapdoclit/services/SoapHttpDocLitPort
// and prints READY; runs until SIGTERM.
package soapbench.crosscheck;

import org.apache.cxf.BusFactory;
import org.apache.cxf.performance.complex_type.server.Server;

public final class SampleServer {
    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[0].matches("[1-9][0-9]{0,4}")) {
            System.err.println("usage: SampleServer PORT BIND");
            System.exit(2);
        }
        BusFactory.getDefaultBus();
        Server server = new Server("http://" + args[1] + ":" + args[0]
                + "/cxf-benchmark-soapdoclit/services/SoapHttpDocLitPort");
        server.run();  // prints READY
        Thread.currentThread().join();
    }
}
