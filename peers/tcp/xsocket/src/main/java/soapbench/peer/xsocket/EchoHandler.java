// The echo of soapbench-echo-server's framing (service/tcp_echo/frame.h) as an
// xSocket data handler: each message is a 4-byte big-endian length, then the
// payload; every whole message is written back unchanged. xSocket calls
// onData whenever bytes arrive; a message not yet complete stays in the
// connection's read buffer (read mark) until its next call.
package soapbench.peer.xsocket;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import org.xsocket.Execution;
import org.xsocket.connection.IConnectHandler;
import org.xsocket.connection.IConnection;
import org.xsocket.connection.IDataHandler;
import org.xsocket.connection.INonBlockingConnection;

class EchoHandler implements IConnectHandler, IDataHandler {
    /** The largest payload accepted, as soapbench-echo-server's default (16 MB). */
    static final int MAX_PAYLOAD = 16 << 20;

    // TCP_NODELAY on every accepted connection, as soapbench-echo-server: an
    // echo is one small segment each way, which must not wait for an ACK.
    // (The server's option map sets only the listening socket's options.)
    @Override
    public boolean onConnect(INonBlockingConnection connection) throws IOException {
        connection.setOption(IConnection.TCP_NODELAY, true);
        // ASYNC: write() queues the bytes for the dispatcher and returns. The
        // default, SYNC, waits until they are sent: on the dispatcher thread
        // itself (non-threaded) that waits for ever (xSocket warns of exactly
        // that), and xSocket's docs recommend ASYNC for throughput anyway.
        connection.setFlushmode(IConnection.FlushMode.ASYNC);
        return true;
    }

    @Override
    public boolean onData(INonBlockingConnection connection) throws IOException {
        while (true) {
            connection.markReadPosition();
            try {
                int length = connection.readInt();
                if (length < 0 || length > MAX_PAYLOAD) {
                    // Not a frame (an HTTP request, noise): as the C++ server, close.
                    connection.close();
                    return true;
                }
                ByteBuffer[] payload = connection.readByteBufferByLength(length);
                connection.removeReadMark();
                // One write of header and payload: two would be two segments,
                // the second held back by Nagle until the client's delayed ACK.
                ByteBuffer[] frame = new ByteBuffer[payload.length + 1];
                frame[0] = ByteBuffer.allocate(4).putInt(0, length);
                System.arraycopy(payload, 0, frame, 1, payload.length);
                connection.write(frame);
            } catch (BufferUnderflowException incomplete) {
                connection.resetToReadMark();  // the rest comes with a later onData
                return true;
            }
        }
    }

    /** xSocket's default: onData runs on the server's worker pool. */
    static final class Threaded extends EchoHandler {
    }

    /** onData runs on the I/O (dispatcher) thread that read the bytes: no hand-off. */
    @Execution(Execution.NONTHREADED)
    static final class NonThreaded extends EchoHandler {
    }
}
