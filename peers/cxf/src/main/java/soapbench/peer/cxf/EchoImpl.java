// The echo service of soapbench's contract (wsdl/echo.wsdl) on Apache CXF.
// EchoPortType and the JAXB classes are generated from the WSDL by
// cxf-codegen-plugin (wsdl2java) at install (package soapbench.echo, build/generated/).
package soapbench.peer.cxf;

import jakarta.jws.WebService;
import jakarta.xml.ws.Holder;
import java.util.List;
import soapbench.echo.EchoItem;
import soapbench.echo.EchoPortType;

// wsdlLocation: CXF binds the endpoint to the WSDL itself (on the class path,
// put there by the build) and serves it on GET /echo?wsdl with the real address.
@WebService(endpointInterface = "soapbench.echo.EchoPortType",
            targetNamespace = "urn:soapbench:echo:1",
            serviceName = "EchoService",
            portName = "EchoPort",
            wsdlLocation = "classpath:wsdl/echo.wsdl")
public class EchoImpl implements EchoPortType {
    // wsdl2java maps each wrapped operation whose request and response parts
    // share a name to one INOUT Holder: CXF unmarshals the request wrapper into
    // it and marshals the holder's value into the response wrapper, so leaving
    // the holder as it came echoes the request unchanged.

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
