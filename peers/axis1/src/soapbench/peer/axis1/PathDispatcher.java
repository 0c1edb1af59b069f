package soapbench.peer.axis1;

import org.apache.axis.AxisFault;
import org.apache.axis.Constants;
import org.apache.axis.MessageContext;
import org.apache.axis.handlers.BasicHandler;

/**
 * Picks the service by the request's path, in the SimpleHTTP transport's request
 * flow. SimpleAxisServer itself only knows paths of the form
 * axis/services/NAME; Axis's URLMapper needs a servlet's path info, which
 * SimpleAxisServer does not set. Its options come from server-config.wsdd:
 * "path" (without the leading slash, as SimpleAxisWorker stores it) and
 * "service", the service deployed at that path.
 */
public final class PathDispatcher extends BasicHandler {
    /** GET PATH?wsdl: SimpleAxisServer asks the transport's handlers here instead of invoke. */
    @Override
    public void generateWSDL(MessageContext context) throws AxisFault {
        invoke(context);
    }

    @Override
    public void invoke(MessageContext context) throws AxisFault {
        if (context.getService() != null) return;
        Object path = context.getProperty(Constants.MC_RELATIVE_PATH);
        if (path != null && path.equals(getOption("path"))) {
            context.setTargetService((String) getOption("service"));
        }
    }
}
