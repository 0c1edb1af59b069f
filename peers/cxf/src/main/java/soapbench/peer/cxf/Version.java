// Prints the stack's version line for peers/cxf/version from the jars serve
// uses, e.g. "Apache CXF 4.2.3, Jetty 12.1.11": the script adds the JVM's.
package soapbench.peer.cxf;

public final class Version {
    public static void main(String[] args) {
        System.out.printf("%s, Jetty %s%n", org.apache.cxf.version.Version.getCompleteVersionString(),
                org.eclipse.jetty.util.Jetty.VERSION);
    }

    private Version() {
    }
}
