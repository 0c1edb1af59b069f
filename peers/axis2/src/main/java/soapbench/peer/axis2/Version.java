// Prints the stack's version line for peers/axis2/version from the jars serve
// uses, e.g. "Apache Axis2 1.8.2 (ADB), SimpleHTTPServer": the script adds
// the JVM's version and flags.
package soapbench.peer.axis2;


public final class Version {
    public static void main(String[] args) {
        String version = org.apache.axis2.engine.AxisServer.class.getPackage().getImplementationVersion();
        System.out.printf("Apache Axis2 %s (ADB), SimpleHTTPServer%n", version != null ? version : "?");
    }

    private Version() {
    }
}
