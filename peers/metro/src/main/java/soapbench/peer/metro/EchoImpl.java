// The echo service of soapbench's contract (wsdl/echo.wsdl) on Eclipse Metro 4
// (the Jakarta XML Web Services RI). EchoPortType and the JAXB classes are
// generated from the WSDL by wsimport (jaxws-maven-plugin) at install
// (package soapbench.echo, in build/generated/).
package soapbench.peer.metro;

import java.util.List;
import jakarta.jws.WebService;
import jakarta.xml.ws.Holder;
import soapbench.echo.EchoItem;
import soapbench.echo.EchoPortType;

// wsdlLocation: Metro binds this class against the WSDL itself (found on
// the class path, copied there by install) and serves it on GET /echo?wsdl.
@WebService(endpointInterface = "soapbench.echo.EchoPortType",
            targetNamespace = "urn:soapbench:echo:1",
            serviceName = "EchoService",
            portName = "EchoPort",
            wsdlLocation = "wsdl/echo.wsdl")
public class EchoImpl implements EchoPortType {
    // wsimport maps each wrapped operation whose request and response parts
    // share a name to one INOUT Holder: the runtime unmarshals the request
    // wrapper into it and marshals the holder's value into the response
    // wrapper, so leaving the holder as it came echoes the request unchanged.

    @Override
    public void echoString(Holder<String> text) {
    }

    @Override
    public void echoStruct(Holder<List<EchoItem>> item) {
    }

    @Override
    public void echoBinary(Holder<byte[]> data) {
    }
}
