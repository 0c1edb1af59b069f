// The echo service of soapbench's contract (wsdl/echo.wsdl) on Spring Web
// Services, contract first: the request and response classes are JAXB classes
// generated from the WSDL's schema at build (jaxb2-maven-plugin, package
// soapbench.echo); Spring-WS routes each request by its payload's root element.
package soapbench.peer.springws;

import org.springframework.ws.server.endpoint.annotation.Endpoint;
import org.springframework.ws.server.endpoint.annotation.PayloadRoot;
import org.springframework.ws.server.endpoint.annotation.RequestPayload;
import org.springframework.ws.server.endpoint.annotation.ResponsePayload;
import soapbench.echo.EchoBinary;
import soapbench.echo.EchoBinaryResponse;
import soapbench.echo.EchoString;
import soapbench.echo.EchoStringResponse;
import soapbench.echo.EchoStruct;
import soapbench.echo.EchoStructResponse;

@Endpoint
public class EchoEndpoint {
    static final String NS = "urn:soapbench:echo:1";

    // Each response carries the request's own values: JAXB unmarshals the
    // request into objects and marshals the same objects into the response.

    @PayloadRoot(namespace = NS, localPart = "echoString")
    @ResponsePayload
    public EchoStringResponse echoString(@RequestPayload EchoString request) {
        EchoStringResponse response = new EchoStringResponse();
        response.setText(request.getText());
        return response;
    }

    @PayloadRoot(namespace = NS, localPart = "echoStruct")
    @ResponsePayload
    public EchoStructResponse echoStruct(@RequestPayload EchoStruct request) {
        EchoStructResponse response = new EchoStructResponse();
        response.getItem().addAll(request.getItem());
        return response;
    }

    @PayloadRoot(namespace = NS, localPart = "echoBinary")
    @ResponsePayload
    public EchoBinaryResponse echoBinary(@RequestPayload EchoBinary request) {
        EchoBinaryResponse response = new EchoBinaryResponse();
        response.setData(request.getData());
        return response;
    }
}
