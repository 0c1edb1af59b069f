<?php
// The three operations of wsdl/echo.wsdl for ext/soap's SoapServer in WSDL mode
// (document/literal wrapped: each method gets the request element as an object and
// returns the response element's content), and the typemap entries for the two
// schema types ext/soap cannot echo unchanged on its own.
declare(strict_types=1);

namespace Soapbench\Peer;

final class EchoService
{
    public function echoString(object $request): object
    {
        return $request;  // {text}
    }

    public function echoStruct(object $request): object
    {
        return $request;  // {item: EchoItem or list of them}, unchanged
    }

    public function echoBinary(object $request): object
    {
        return $request;  // {data}: ext/soap decoded the base64 and encodes it again
    }
}

// The text content of a simple element as ext/soap hands it to a typemap
// ("<p:name xmlns:p=...>text</p:name>" or "<p:name .../>").
function element_text(string $xml): string
{
    $open = strpos($xml, '>');
    if ($open === false || $xml[$open - 1] === '/') return '';
    $close = strrpos($xml, '</');
    return $close === false || $close <= $open ? '' : substr($xml, $open + 1, $close - $open - 1);
}

function client_fault(string $message): \SoapFault
{
    return new \SoapFault('Client', $message);
}

// xsd:unsignedLong as a decimal string: ext/soap reads it into a PHP int, and
// values over PHP_INT_MAX (2^63 - 1) into a double, which turns
// 18446744073709551615 into 18446744073709551616.
function ulong_from_xml(string $xml): string
{
    $text = trim(element_text($xml));
    if ($text !== '' && $text[0] === '+') $text = substr($text, 1);
    $digits = ltrim($text, '0');
    if ($digits === '') $digits = '0';
    if (!ctype_digit($text) || strlen($digits) > 20 || (strlen($digits) === 20 && strcmp($digits, '18446744073709551615') > 0))
        throw client_fault("varULong: '$text' is not an xsd:unsignedLong");
    return $digits;
}

function ulong_to_xml($value): string
{
    return '<v>' . $value . '</v>';
}

// xsd:QName as [namespace, local part]: ext/soap keeps the text "prefix:local" and
// writes it back under its own prefixes (ns1), where the request's prefix means
// nothing. The typemap gets only the element itself, with the declarations on it and
// that of its own prefix; a prefix declared further out is looked up in the request
// text (its first declaration there).
function qname_from_xml(string $xml): array
{
    $text = trim(element_text($xml));
    $colon = strpos($text, ':');
    $prefix = $colon === false ? '' : substr($text, 0, $colon);
    $local = $colon === false ? $text : substr($text, $colon + 1);
    $ns = declared_namespace($xml, $prefix) ?? declared_namespace(request_text(), $prefix);
    if ($ns === null) {
        if ($prefix !== '') throw client_fault("varQName: the prefix '$prefix' of '$text' is not declared");
        $ns = '';  // unprefixed, no default namespace: no namespace
    }
    return [$ns, $local];
}

function qname_to_xml($value): string
{
    [$ns, $local] = $value;
    // ext/soap writes elements with prefixes (ns1:) and declares no default
    // namespace, so an unprefixed value is in no namespace, as it should be.
    if ($ns === '') return '<v>' . htmlspecialchars($local, ENT_XML1) . '</v>';
    return '<v xmlns:q="' . htmlspecialchars($ns, ENT_XML1 | ENT_QUOTES) . '">q:'
        . htmlspecialchars($local, ENT_XML1) . '</v>';
}

function declared_namespace(string $xml, string $prefix): ?string
{
    $name = $prefix === '' ? 'xmlns' : 'xmlns:' . preg_quote($prefix, '/');
    if (!preg_match('/\s' . $name . '\s*=\s*(?:"([^"]*)"|\'([^\']*)\')/', $xml, $m)) return null;
    return html_entity_decode($m[2] ?? $m[1], ENT_XML1 | ENT_QUOTES);
}

function request_text(): string
{
    static $text = null;
    return $text ??= (string) file_get_contents('php://input');
}

function typemap(): array
{
    $xsd = 'http://www.w3.org/2001/XMLSchema';
    return [
        ['type_ns' => $xsd, 'type_name' => 'unsignedLong',
         'from_xml' => __NAMESPACE__ . '\ulong_from_xml', 'to_xml' => __NAMESPACE__ . '\ulong_to_xml'],
        ['type_ns' => $xsd, 'type_name' => 'QName',
         'from_xml' => __NAMESPACE__ . '\qname_from_xml', 'to_xml' => __NAMESPACE__ . '\qname_to_xml'],
    ];
}
