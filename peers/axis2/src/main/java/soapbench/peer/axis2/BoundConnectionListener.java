// Axis2's standalone server accepts on every interface (its
// DefaultConnectionListener opens `new ServerSocket(port)`); this listener is
// the same accept loop on one address, so the peer listens on BIND only. It
// extends DefaultConnectionListener because SimpleHttpServer casts to it, and
// overrides every method that touches the socket.
package soapbench.peer.axis2;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.apache.axis2.transport.http.server.AxisHttpConnectionImpl;
import org.apache.axis2.transport.http.server.DefaultConnectionListener;
import org.apache.axis2.transport.http.server.DefaultConnectionListenerFailureHandler;
import org.apache.axis2.transport.http.server.HttpConnectionManager;
import org.apache.http.params.HttpParams;

final class BoundConnectionListener extends DefaultConnectionListener {
    /** Pending connections the kernel queues before accept (Java's default is 50). */
    private static final int BACKLOG = 1024;

    private final ServerSocket socket;
    private final HttpConnectionManager connections;
    private final HttpParams params;
    private volatile boolean destroyed;

    BoundConnectionListener(InetAddress bind, int port, HttpConnectionManager connections, HttpParams params)
            throws IOException {
        super(port, connections, new DefaultConnectionListenerFailureHandler(), params);
        this.connections = connections;
        this.params = params;
        socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(bind, port), BACKLOG);
    }

    @Override
    public void run() {
        while (!destroyed && !Thread.currentThread().isInterrupted()) {
            try {
                Socket accepted = socket.accept();
                // A worker of the connection manager's pool serves the
                // connection, keep-alive requests included, until it closes.
                connections.process(new AxisHttpConnectionImpl(accepted, params));
            } catch (IOException e) {
                if (!destroyed) {
                    System.err.println("axis2: accept failed: " + e);
                }
            }
        }
    }

    // The socket is open from the constructor on: nothing to wait for.
    @Override
    public synchronized void awaitSocketOpen() {
    }

    @Override
    public synchronized int getPort() {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public void destroy() {
        destroyed = true;
        try {
            close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
