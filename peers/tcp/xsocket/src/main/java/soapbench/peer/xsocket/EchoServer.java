// The xSocket echo server of the seed's load test, speaking
// soapbench-echo-server's framing, for `soapbench tcp-echo --url`.
//
//   java ... soapbench.peer.xsocket.EchoServer PORT BIND threaded|non-threaded [THREADS]
//
// threaded: the handler runs on a fixed worker pool (20, the seed's); the
// non-threaded: on xSocket's dispatcher threads. Runs until SIGTERM.
package soapbench.peer.xsocket;

import java.net.InetAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.xsocket.connection.IServer;
import org.xsocket.connection.Server;

public final class EchoServer {
    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 4
                || !(args[2].equals("threaded") || args[2].equals("non-threaded"))) {
            System.err.println("usage: EchoServer PORT BIND threaded|non-threaded [THREADS]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        InetAddress bind = InetAddress.getByName(args[1]);
        boolean threaded = args[2].equals("threaded");
        int threads = args.length == 4 ? Integer.parseInt(args[3]) : 20;

        EchoHandler handler = threaded ? new EchoHandler.Threaded() : new EchoHandler.NonThreaded();
        IServer server = new Server(bind, port, handler);
        ExecutorService pool = null;
        if (threaded) {
            pool = Executors.newFixedThreadPool(threads);
            server.setWorkerpool(pool);
        }
        server.start();  // returns once it listens
        System.out.printf("xsocket: echo on tcp://%s:%d, %s%s, xSocket %s%n", bind.getHostAddress(),
                server.getLocalPort(), args[2], threaded ? " (pool of " + threads + ")" : "",
                org.xsocket.connection.ConnectionUtils.getImplementationVersion());
        ExecutorService workers = pool;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                // ending anyway
            }
            if (workers != null) {
                workers.shutdownNow();
            }
        }, "shutdown"));
    }

    private EchoServer() {
    }
}
