# soapbench peer: the echo contract of wsdl/echo.wsdl on SOAP::Lite.
#
# SOAP::Lite is built for RPC/encoded: it dispatches on the body's first
# element (the operation) and, left alone, answers with xsi:type on every
# value and an encodingStyle on the envelope. Document/literal wrapped is
# emulated here in its own extension points:
#   - SoapBench::EchoDeserializer::typecast keeps each leaf of the echo
#     namespace as its text (no xsi:type decoding, '' for an empty element)
#     and resolves varQName's prefix while the request's namespaces are in
#     scope;
#   - SoapBench::EchoService reads the request in the WSDL's order from the
#     SOAP::SOM, checks it against the schema (names, order, occurrences,
#     lexical forms, the enumeration) and answers SOAP::Data elements built in
#     the WSDL's order, with the varAttrString attribute;
#   - SoapBench::LiteralSerializer writes those values as literal text:
#     escaped, no xsi:type, elements qualified with the prefix `echo`.
# There is no generator: the element lists below are written from the WSDL.
package SoapBench::EchoService;

use strict;
use warnings;

use MIME::Base64 ();
use SOAP::Lite;

our @ISA = ('SOAP::Server::Parameters');  # handlers get the SOAP::SOM last

our $NS = 'urn:soapbench:echo:1';
our $PREFIX = 'echo';         # the prefix of $NS in responses
my $OTHER_PREFIX = 'qn';      # declared on a varQName of another namespace

# The WSDL's sequences: [element name, schema type], in order.
my @NESTED_STRUCT = (
    [varFloat => 'float'], [varShort => 'short'], [varString => 'string'],
    [varByte => 'byte'], [varDecimal => 'decimal'], [varDouble => 'double'],
    [varDateTime => 'dateTime'],
);
my @ECHO_ITEM = (
    [varString => 'string'], [varUByte => 'unsignedByte'],
    [varULong => 'unsignedLong'], [varFloat => 'float'], [varQName => 'QName'],
    [varBase64Binary => 'base64Binary'], [varHexBinary => 'hexBinary'],
    [varColor => 'Color'], [varStruct => \@NESTED_STRUCT],
);

# Integer types: [lowest, highest] as digit strings (unsignedLong exceeds
# what every Perl number holds exactly).
my %INTEGER_RANGE = (
    byte => ['-128', '127'], short => ['-32768', '32767'],
    unsignedByte => ['0', '255'], unsignedLong => ['0', '18446744073709551615'],
);
my $FLOAT = qr/^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|-?INF|NaN)$/;
my %LEXICAL = (
    float => $FLOAT, double => $FLOAT,
    decimal => qr/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/,
    dateTime => qr/^-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?$/,
    Color => qr/^(?:RED|GREEN|BLUE)$/,
);

# Sets up a SOAP::Lite server (SOAP::Transport::HTTP::Server or a subclass)
# to serve this contract; returns it.
sub configure {
    my $server = shift;
    $server->dispatch_with({$NS => __PACKAGE__});
    # An operation element in another namespace is a Client fault; left
    # alone, SOAP::Lite would try to load a Perl class named after it.
    $server->on_dispatch(sub {
        my $uri = shift->namespaceuriof('/Envelope/Body/[1]') // '';
        die "No service for namespace '$uri'; this one is $NS\n" unless $uri eq $NS;
        return;
    });
    $server->deserializer(SoapBench::EchoDeserializer->new);
    # Responses: elements prefixed `echo`, no SOAP encodingStyle (literal).
    $server->serializer(SoapBench::LiteralSerializer->new->ns($NS, $PREFIX));
    $server->serializer->encodingStyle('');
    return $server;
}

sub client_fault {
    die SOAP::Fault->faultcode('Client')->faultstring(shift);
}

# The child elements of a SOAP::Data element (none for an empty element).
sub children_of {
    my $value = shift->value;
    return ref $value eq 'REF' ? $$value->value : ();
}

# Request elements are SOAP::Data named by local name and uri (namespace).
sub check_name {
    my ($data, $name, $parent) = @_;
    my $got = $data->name // '?';
    $got = '{' . $data->uri . "}$got" if defined $data->uri && $data->uri ne '';
    client_fault("$parent: expected <{$NS}$name>, got <$got>")
        unless $data->name eq $name && ($data->uri // '') eq $NS;
}

# $_[0] (a digit string, maybe signed) within [lowest, highest]?
sub integer_in_range {
    my ($text, $range) = @_;
    return compare_integers($text, $range->[0]) >= 0 && compare_integers($text, $range->[1]) <= 0;
}

# <=> for integers written as digit strings of any length.
sub compare_integers {
    my ($x, $y) = map {
        (my $s = $_) =~ s/^\+//;
        $s =~ s/^(-?)0+(?=\d)/$1/;  # no leading zeros
        $s eq '-0' ? '0' : $s;
    } @_;
    my $x_negative = $x =~ /^-/ ? 1 : 0;
    my $y_negative = $y =~ /^-/ ? 1 : 0;
    return $y_negative <=> $x_negative if $x_negative != $y_negative;
    my $magnitude = length($x) <=> length($y) || $x cmp $y;
    return $x_negative ? -$magnitude : $magnitude;
}

# One simple-typed element, child of $where: checks its value and returns the
# response element.
sub echo_simple {
    my ($data, $name, $type, $where) = @_;
    my $value = $data->value;
    client_fault("$where: <$name> is nil; the schema does not allow it") unless defined $value;
    client_fault("$where: <$name> has child elements") if ref $value eq 'REF';
    my $out = SOAP::Data->name($name)->prefix($PREFIX);
    if ($type eq 'QName') {
        my ($ns, $local) = @$value;
        my $qname = $ns eq '' ? $local
                  : $ns eq $NS ? "$PREFIX:$local"
                  : do { $out->attr({"xmlns:$OTHER_PREFIX" => $ns}); "$OTHER_PREFIX:$local" };
        return $out->type(literal => $qname);
    }
    return $out->type(literal => $value) if $type eq 'string';
    (my $text = $value) =~ s/^[ \t\r\n]+|[ \t\r\n]+$//g;  # whiteSpace collapse
    if ($type eq 'base64Binary') {
        $text =~ s/[ \t\r\n]+//g;
        client_fault("$where: <$name> is not base64Binary")
            unless length($text) % 4 == 0 && $text =~ m{^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$};
        return $out->type(literal_base64 => MIME::Base64::decode_base64($text));
    }
    if ($type eq 'hexBinary') {
        client_fault("$where: <$name> is not hexBinary") unless $text =~ /^(?:[0-9A-Fa-f]{2})*$/;
        return $out->type(literal_hex => pack('H*', $text));
    }
    if (my $range = $INTEGER_RANGE{$type}) {
        client_fault("$where: <$name> '$text' is not a valid $type")
            unless $text =~ /^[+-]?\d+$/ && integer_in_range($text, $range);
    }
    elsif ($text !~ $LEXICAL{$type}) {
        client_fault("$where: <$name> '$text' is not a valid $type");
    }
    return $out->type(literal => $text);
}

# A complex-typed element at $path: its children, checked and echoed in the
# WSDL's order.
sub echo_complex {
    my ($data, $name, $fields, $path) = @_;
    my @in = children_of($data);
    my @out;
    for my $field (@$fields) {
        my ($field_name, $type) = @$field;
        my $child = shift @in;
        client_fault("$path: <$field_name> is missing") unless $child;
        check_name($child, $field_name, $path);
        push @out, ref $type ? echo_complex($child, $field_name, $type, "$path/$field_name")
                             : echo_simple($child, $field_name, $type, $path);
    }
    client_fault("$path: unexpected <" . $in[0]->name . '>') if @in;
    my $out = SOAP::Data->name($name => \SOAP::Data->value(@out))->prefix($PREFIX);
    my $attribute = $data->attr->{varAttrString};  # unqualified, as the schema says
    $out->attr({varAttrString => $attribute}) if $name eq 'varStruct' && defined $attribute;
    return $out;
}

# The operation element of the request, checked to be $name in $NS.
sub operation {
    my ($som, $name) = @_;
    my $data = $som->dataof('/Envelope/Body/[1]');
    check_name($data, $name, 'Body');
    return $data;
}

# A wrapper with one child of a simple type: echoString and echoBinary.
sub echo_one {
    my ($som, $operation, $name, $type) = @_;
    my @in = children_of(operation($som, $operation));
    client_fault("$operation: expected exactly one <$name>") unless @in == 1;
    check_name($in[0], $name, $operation);
    return echo_simple($in[0], $name, $type, $operation);
}

# The operations. SOAP::Lite names the response element operation + 'Response'
# in the request's namespace and puts what they return inside it.
sub echoString { return echo_one(pop, echoString => text => 'string') }

sub echoBinary { return echo_one(pop, echoBinary => data => 'base64Binary') }

sub echoStruct {
    my $som = pop;
    my @items = children_of(operation($som, 'echoStruct'));
    my $i = 0;
    my @echoed = map { check_name($_, 'item', 'echoStruct');
                       echo_complex($_, 'item', \@ECHO_ITEM, 'echoStruct/item[' . $i++ . ']') } @items;
    # No items: an empty response element. Returning nothing would make
    # SOAP::Lite write it as xsi:nil, which the schema does not allow.
    return @echoed ? @echoed : SOAP::Data->type(xml => '');
}


package SoapBench::QName;  # a resolved xsd:QName: [namespace, local part]


package SoapBench::EchoDeserializer;

use strict;
use warnings;

our @ISA = ('SOAP::Deserializer');

# Called by SOAP::Lite for every element before it decodes the value by its
# xsi:type; a defined result is the element's value. In the echo namespace a
# leaf keeps its text, and varQName becomes a SoapBench::QName, resolved
# through the namespaces in scope (SOAP::Deserializer's %uris, prefix =>
# namespace, '' for the default one) while the element is being decoded.
sub typecast {
    my ($self, $value, $name, $attrs, $children) = @_;
    return undef if ref $children || $name !~ /^\{\Q$SoapBench::EchoService::NS\E\}(.+)$/;
    my $local = $1;
    $value = '' unless defined $value;
    return $value unless $local eq 'varQName';
    (my $text = $value) =~ s/^[ \t\r\n]+|[ \t\r\n]+$//g;
    my ($prefix, $part) = $text =~ /^(?:([^\s:]+):)?([^\s:]+)$/
        or die "varQName '$text' is not a QName\n";
    no warnings 'once';
    my $ns = $SOAP::Deserializer::uris{$prefix // ''};
    die "varQName '$text': prefix '$prefix' is not declared\n" if defined $prefix && !defined $ns;
    return bless [$ns // '', $part], 'SoapBench::QName';
}


package SoapBench::LiteralSerializer;

use strict;
use warnings;

our @ISA = ('SOAP::Serializer');

# SOAP::Data types for literal values: as_TYPE is how SOAP::Lite serializes a
# value of TYPE. No xsi:type; text escaped (SOAP::Lite escapes only the
# values it types as xsd:string); binary from bytes.
sub as_literal {
    my ($self, $value, $name, $type, $attr) = @_;
    return [$name, $attr, SOAP::Utils::encode_data($value)];
}

sub as_literal_base64 {
    my ($self, $value, $name, $type, $attr) = @_;
    return [$name, $attr, MIME::Base64::encode_base64($value, '')];
}

sub as_literal_hex {
    my ($self, $value, $name, $type, $attr) = @_;
    return [$name, $attr, uc unpack('H*', $value)];
}

1;
