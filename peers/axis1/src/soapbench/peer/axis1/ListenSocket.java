package soapbench.peer.axis1;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import org.apache.axis.components.threadpool.ThreadPool;
import org.apache.axis.transport.http.SimpleAxisServer;

/**
 * The listening socket EchoServer hands to SimpleAxisServer. SimpleAxisServer
 * binds all interfaces when it opens its own socket; this one is bound to the
 * address given. Its accept() also makes up for what SimpleAxisServer's accept
 * loop lacks:
 * - TCP_NODELAY and a read timeout on every connection, and an output buffer so
 *   that the worker's many small writes (status line, each header, the body)
 *   leave as one segment;
 * - it accepts only while Axis's ThreadPool has a thread free: the pool throws
 *   IllegalStateException when full, which ends SimpleAxisServer's accept loop for
 *   good. Further connections wait in the listen backlog instead;
 * - a failed accept (e.g. no file descriptors left) is retried, where
 *   SimpleAxisServer would stop accepting.
 */
final class ListenSocket extends ServerSocket {
    /** Output buffer per connection: an echoStruct response of a few items fits whole. */
    private static final int OUTPUT_BUFFER_BYTES = 64 * 1024;
    /** Connections waiting to be accepted while every worker is busy. */
    private static final int BACKLOG = 1024;

    private final int maxWorkers;
    private final int readTimeoutMillis;

    /**
     * @param maxWorkers the size of SimpleAxisServer's ThreadPool
     * @param readTimeoutMillis how long a worker waits for request bytes before it gives up
     */
    ListenSocket(InetSocketAddress address, int maxWorkers, int readTimeoutMillis) throws IOException {
        this.maxWorkers = maxWorkers;
        this.readTimeoutMillis = readTimeoutMillis;
        setReuseAddress(true);
        bind(address, BACKLOG);
    }

    @Override
    public Socket accept() throws IOException {
        while (true) {
            waitForFreeWorker();
            Socket socket = new BufferedSocket();
            try {
                implAccept(socket);
            } catch (IOException e) {
                if (isClosed()) throw e;
                System.err.println("axis1: accept failed, retrying: " + e);
                pause(10);
                continue;
            }
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(readTimeoutMillis);
            return socket;
        }
    }

    /** Only the accepting thread adds workers, so a free one now is still free at addWorker. */
    private void waitForFreeWorker() {
        ThreadPool pool = SimpleAxisServer.getPool();
        while (pool.getWorkerCount() >= maxWorkers && !isClosed()) pause(1);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A socket whose output is buffered, and flushed when the worker closes it. */
    private static final class BufferedSocket extends Socket {
        private OutputStream output;

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (output == null) output = new BufferedOutputStream(super.getOutputStream(), OUTPUT_BUFFER_BYTES);
            return output;
        }

        @Override
        public synchronized void close() throws IOException {
            try {
                if (output != null && !isClosed()) output.flush();
            } catch (SocketException e) {
                // The client has gone: nothing left to send it.
            } finally {
                super.close();
            }
        }
    }
}
