<?php
// The typemap functions of echo-service.php, without a server:
//   php peers/php/test/typemap-test.php      (prints "N passed, M failed"; exit 1 on a failure)
declare(strict_types=1);

require __DIR__ . '/../echo-service.php';

use function Soapbench\Peer\{element_text, ulong_from_xml, ulong_to_xml, qname_from_xml, qname_to_xml};

$passed = 0;
$failed = 0;
function check(string $what, $got, $want): void
{
    global $passed, $failed;
    if ($got === $want) { $passed++; return; }
    $failed++;
    echo "FAIL $what: got ", var_export($got, true), ", want ", var_export($want, true), "\n";
}
function faults(string $what, callable $f, string $needle): void
{
    try { $f(); check("$what faults", 'no fault', 'fault'); }
    catch (SoapFault $e) { check("$what faults", str_contains($e->getMessage(), $needle), true); }
}

check('element_text', element_text('<e:v xmlns:e="urn:x">42</e:v>'), '42');
check('element_text of <v/>', element_text('<e:v xmlns:e="urn:x"/>'), '');
check('element_text of <v></v>', element_text('<v></v>'), '');

$max = '18446744073709551615';
check('ulong max stays exact', ulong_from_xml("<v>$max</v>"), $max);
check('ulong max - 1', ulong_from_xml('<v>18446744073709551614</v>'), '18446744073709551614');
check('ulong zero', ulong_from_xml('<v>0</v>'), '0');
check('ulong leading zeros and +', ulong_from_xml('<v> +007 </v>'), '7');
check('ulong to_xml', ulong_to_xml($max), "<v>$max</v>");
faults('ulong max + 1', fn() => ulong_from_xml('<v>18446744073709551616</v>'), 'unsignedLong');
faults('ulong negative', fn() => ulong_from_xml('<v>-1</v>'), 'unsignedLong');
faults('ulong empty', fn() => ulong_from_xml('<v/>'), 'unsignedLong');

check('qname by the element\'s own prefix',
    qname_from_xml('<tns:varQName xmlns:tns="urn:soapbench:echo:1">tns:sample0</tns:varQName>'),
    ['urn:soapbench:echo:1', 'sample0']);
check('qname by a prefix declared on the element',
    qname_from_xml('<e:varQName xmlns:e="urn:e" xmlns:q=\'urn:o&amp;p\'>q:x</e:varQName>'), ['urn:o&p', 'x']);
check('unprefixed qname, no default namespace', qname_from_xml('<e:v xmlns:e="urn:e">x</e:v>'), ['', 'x']);
check('qname to_xml declares its prefix', qname_to_xml(['urn:o&p', 'x']), '<v xmlns:q="urn:o&amp;p">q:x</v>');
check('qname in no namespace to_xml', qname_to_xml(['', 'x']), '<v>x</v>');
faults('undeclared qname prefix', fn() => qname_from_xml('<e:v xmlns:e="urn:e">zz:x</e:v>'), "'zz'");

echo "$passed passed, $failed failed\n";
exit($failed === 0 ? 0 : 1);
