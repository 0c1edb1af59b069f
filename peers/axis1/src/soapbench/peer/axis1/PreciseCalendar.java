package soapbench.peer.axis1;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.GregorianCalendar;
import java.util.TimeZone;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An xsd:dateTime as the java.util.Calendar the generated beans hold, but keeping
 * the fraction of the second to the nanosecond. Axis's own CalendarDeserializer
 * and CalendarSerializer keep milliseconds only, so 12:34:56.789012Z would come
 * back as 12:34:56.789Z; DateTimeDeserializerFactory and DateTimeSerializerFactory
 * use this class instead (registered for xsd:dateTime in soapbench.wsdd).
 */
public final class PreciseCalendar extends GregorianCalendar {
    private static final long serialVersionUID = 1L;

    /** xsd:dateTime's lexical form: year, month, day, hour, minute, second, fraction, zone. */
    private static final Pattern LEXICAL = Pattern.compile(
        "(-?\\d{4,9})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?(Z|[+-]\\d{2}:\\d{2})?");

    /** The value as read, with its full fraction. */
    private final Instant instant;

    public PreciseCalendar(Instant instant) {
        super(TimeZone.getTimeZone("UTC"));
        this.instant = instant;
        setTimeInMillis(instant.toEpochMilli());
    }

    /** The instant with its full fraction; only milliseconds if the calendar was set since. */
    public Instant instant() {
        return getTimeInMillis() == instant.toEpochMilli() ? instant : Instant.ofEpochMilli(getTimeInMillis());
    }

    /**
     * Reads an xsd:dateTime. A value without a zone is taken as UTC, as Axis does;
     * digits of the fraction beyond nanoseconds are dropped.
     * @throws IllegalArgumentException when text is not an xsd:dateTime
     */
    public static Instant parse(String text) {
        Matcher m = LEXICAL.matcher(text.trim());
        if (!m.matches()) throw new IllegalArgumentException("not an xsd:dateTime: '" + text + "'");
        String fraction = m.group(7) == null ? "" : m.group(7);
        fraction = fraction.length() > 9 ? fraction.substring(0, 9) : fraction;
        int nanos = fraction.isEmpty() ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
        int hour = Integer.parseInt(m.group(4));
        try {
            LocalDateTime local;
            if (hour == 24) {  // 24:00:00 is midnight at the end of the day
                if (!m.group(5).equals("00") || !m.group(6).equals("00") || !fraction.matches("0*")) {
                    throw new IllegalArgumentException("hour 24 with more than 00:00: '" + text + "'");
                }
                local = LocalDateTime.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3)), 0, 0).plusDays(1);
            } else {
                local = LocalDateTime.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3)), hour, Integer.parseInt(m.group(5)),
                    Integer.parseInt(m.group(6)), nanos);
            }
            String zone = m.group(8);
            return local.toInstant(zone == null || zone.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(zone));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("not an xsd:dateTime: '" + text + "': " + e.getMessage(), e);
        }
    }

    /** Writes an instant in UTC: 2006-11-29T12:34:56.789012Z, the fraction without trailing zeros. */
    public static String format(Instant instant) {
        String text = instant.toString();  // ISO-8601 in UTC, the fraction in groups of 3 digits
        int dot = text.indexOf('.');
        if (dot >= 0) {
            int end = text.length() - 1;  // before the Z
            while (text.charAt(end - 1) == '0') end--;
            text = text.substring(0, end) + "Z";
        }
        return text.startsWith("+") ? text.substring(1) : text;  // years past 9999: no sign in XSD
    }
}
