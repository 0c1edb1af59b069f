// Prints "xSocket 2.8.15" from the jar serve uses.
package soapbench.peer.xsocket;

public final class Version {
    public static void main(String[] args) {
        System.out.println("xSocket " + org.xsocket.connection.ConnectionUtils.getImplementationVersion());
    }

    private Version() {
    }
}
