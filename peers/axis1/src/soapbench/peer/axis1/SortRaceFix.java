package soapbench.peer.axis1;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import org.apache.axis.MessageContext;
import org.apache.axis.description.JavaServiceDesc;
import org.apache.axis.description.OperationDesc;
import org.apache.axis.description.ServiceDesc;
import org.apache.axis.server.AxisServer;

/**
 * Works around a data race in Axis 1.4 that makes concurrent requests fail on
 * Java 8 and later. JavaServiceDesc.getOperationsByQName, called for every
 * request, sorts the service's shared list of the operation's overloads in
 * place (Collections.sort). Since Java 8 that is ArrayList.sort, which throws
 * ConcurrentModificationException when another thread sorted the same list
 * meanwhile: at 4 clients about one echoString call in 3000 failed with a
 * Server.userException fault. (dCache met the same: github.com/dCache/dcache/pull/1401.)
 *
 * apply() builds the service descriptions' lookup maps once, before the server
 * accepts anything, then replaces each list in them with a LockedSortList, whose
 * sort holds the list's lock. JavaServiceDesc's maps are private, hence reflection;
 * they do not change after start-up, as no operation is deployed later.
 */
final class SortRaceFix {
    private SortRaceFix() {
    }

    /** Fixes every service deployed in engine; call before the first request. */
    static void apply(AxisServer engine) throws Exception {
        for (Iterator<?> it = engine.getConfig().getDeployedServices(); it.hasNext(); ) {
            String name = ((ServiceDesc) it.next()).getName();
            ServiceDesc desc = engine.getService(name).getInitializedServiceDesc(new MessageContext(engine));
            if (!(desc instanceof JavaServiceDesc)) continue;
            for (Object operation : desc.getOperations()) {
                desc.getOperationsByQName(((OperationDesc) operation).getElementQName());  // builds the maps
            }
            lockSorts(desc, "qname2OperationsMap");
            lockSorts(desc, "name2OperationsMap");
        }
    }

    @SuppressWarnings("unchecked")
    private static void lockSorts(ServiceDesc desc, String fieldName) throws Exception {
        Field field = JavaServiceDesc.class.getDeclaredField(fieldName);
        field.setAccessible(true);
        Map<Object, Object> map = (Map<Object, Object>) field.get(desc);
        if (map == null) throw new IllegalStateException("JavaServiceDesc." + fieldName + " was not built");
        map.replaceAll((key, list) -> new LockedSortList((Collection<?>) list));
    }

    /** An ArrayList (what JavaServiceDesc casts to) that sorts under its own lock. */
    private static final class LockedSortList extends ArrayList<Object> {
        private static final long serialVersionUID = 1L;

        LockedSortList(Collection<?> elements) {
            super(elements);
        }

        @Override
        @SuppressWarnings("unchecked")
        public synchronized void sort(Comparator<? super Object> comparator) {
            super.sort(comparator);
        }
    }
}
