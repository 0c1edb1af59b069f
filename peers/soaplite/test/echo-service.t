#!/usr/bin/perl
# The SOAP::Lite echo service in-process (no network): responses as the WSDL
# says them, faults for what it does not allow. Run: prove peers/soaplite/test
use strict;
use warnings;

use FindBin ();
use lib "$FindBin::RealBin/../perl";

use HTTP::Request;
use MIME::Base64 ();
use SOAP::Transport::HTTP;
use Test::More;

use SoapBench::EchoService;

my $NS = $SoapBench::EchoService::NS;
my $examples = "$FindBin::RealBin/../../../wsdl/examples";
my $server = SoapBench::EchoService::configure(SOAP::Transport::HTTP::Server->new);

sub example {
    open my $file, '<:raw', "$examples/$_[0]-request.xml" or die "$examples/$_[0]-request.xml: $!";
    local $/;
    return scalar <$file>;
}

sub envelope {
    return qq{<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:e="$NS"><s:Body>$_[0]</s:Body></s:Envelope>};
}

# POSTs $body to the service: (HTTP status, response body as text).
sub call {
    my $body = shift;
    $server->request(HTTP::Request->new(POST => 'http://localhost/echo',
                                        ['Content-Type' => 'text/xml; charset=utf-8'], $body));
    $server->handle;
    return ($server->response->code, $server->response->decoded_content);
}

sub faults_with {
    my ($body, $pattern, $name) = @_;
    my ($status, $response) = call($body);
    is($status, 500, "$name: HTTP 500");
    like($response, qr{<faultcode>soap:Client</faultcode><faultstring>[^<]*$pattern}, "$name: Client fault");
}

subtest 'echoString example: the same text, literal' => sub {
    my ($status, $response) = call(example('echoString'));
    is($status, 200);
    my ($sent) = example('echoString') =~ m{<echo:text>(.*)</echo:text>};
    like($response, qr{<soap:Body><echo:echoStringResponse><echo:text>\Q$sent\E</echo:text></echo:echoStringResponse></soap:Body>});
    unlike($response, qr{xsi:type|encodingStyle}, 'no xsi:type, no encodingStyle');
};

subtest 'echoStruct example: the item back byte for byte' => sub {
    my ($status, $response) = call(example('echoStruct'));
    is($status, 200);
    my ($item) = example('echoStruct') =~ m{(<echo:item>.*</echo:item>)};
    like($response, qr{<echo:echoStructResponse>\Q$item\E</echo:echoStructResponse>});
};

subtest 'three different items keep their order' => sub {
    my $request = example('echoStruct');
    my ($item) = $request =~ m{(<echo:item>.*</echo:item>)};
    my @items = map { (my $copy = $item) =~ s/item 0 /item $_ /; $copy } 1 .. 3;
    $request =~ s{\Q$item\E}{join '', @items}e;
    my ($status, $response) = call($request);
    is($status, 200);
    is_deeply([$response =~ /<echo:varString>item (\d) /g], [1, 2, 3]);
};

subtest 'no items: an empty response element, not nil' => sub {
    my ($status, $response) = call(envelope('<e:echoStruct/>'));
    is($status, 200);
    like($response, qr{<echo:echoStructResponse />});
};

subtest 'an empty string stays an empty string' => sub {
    my ($status, $response) = call(envelope('<e:echoString><e:text/></e:echoString>'));
    is($status, 200);
    like($response, qr{<echo:echoStringResponse><echo:text /></echo:echoStringResponse>});
};

subtest 'QName values keep their namespace' => sub {
    my $request = example('echoStruct');
    for ([q{<echo:varQName xmlns:x="urn:other">x:foo</echo:varQName>}, q{<echo:varQName xmlns:qn="urn:other">qn:foo</echo:varQName>}],
         [q{<echo:varQName xmlns="urn:dflt">foo</echo:varQName>}, q{<echo:varQName xmlns:qn="urn:dflt">qn:foo</echo:varQName>}],
         [q{<echo:varQName>foo</echo:varQName>}, q{<echo:varQName>foo</echo:varQName>}],
         [q{<echo:varQName xmlns:p="urn:soapbench:echo:1">p:bar</echo:varQName>}, q{<echo:varQName>echo:bar</echo:varQName>}]) {
        my ($sent, $expected) = @$_;
        (my $body = $request) =~ s{<echo:varQName>echo:sample0</echo:varQName>}{$sent};
        my ($status, $response) = call($body);
        is($status, 200, $sent);
        like($response, qr{\Q$expected\E}, $sent);
    }
};

subtest 'echoBinary: bytes back unchanged' => sub {
    for my $bytes ('', "\0", "abc", join('', map { chr(($_ * 7) % 256) } 0 .. 99_999)) {
        my $base64 = MIME::Base64::encode_base64($bytes, "\n");  # line breaks are allowed
        my ($status, $response) = call(envelope("<e:echoBinary><e:data>$base64</e:data></e:echoBinary>"));
        is($status, 200, length($bytes) . ' bytes');
        my ($echoed) = $response =~ m{<echo:data>([^<]*)</echo:data>|<echo:data />};
        is(MIME::Base64::decode_base64($echoed // ''), $bytes, length($bytes) . ' bytes echoed');
    }
};

subtest 'values the schema does not allow are Client faults' => sub {
    my $request = example('echoStruct');
    my %bad = (
        'color outside the enumeration' => [qr{<echo:varColor>RED}, '<echo:varColor>PINK', qr{is not a valid Color}],
        'unsignedByte 256' => [qr{<echo:varUByte>255}, '<echo:varUByte>256', qr{is not a valid unsignedByte}],
        'unsignedLong 2^64' => [qr{18446744073709551615}, '18446744073709551616', qr{is not a valid unsignedLong}],
        'byte -129' => [qr{<echo:varByte>-128}, '<echo:varByte>-129', qr{is not a valid byte}],
        'short 32768' => [qr{<echo:varShort>-32768}, '<echo:varShort>32768', qr{is not a valid short}],
        'float text' => [qr{<echo:varFloat>3.40282347E\+38}, '<echo:varFloat>big', qr{is not a valid float}],
        'dateTime without time' => [qr{2006-11-29T12:34:56.789012Z}, '2006-11-29', qr{is not a valid dateTime}],
        'bad hexBinary' => [qr{<echo:varHexBinary>FF}, '<echo:varHexBinary>XF', qr{is not hexBinary}],
        'bad base64Binary' => [qr{<echo:varBase64Binary>AA}, '<echo:varBase64Binary>!A', qr{is not base64Binary}],
        'missing element' => [qr{<echo:varColor>RED</echo:varColor>}, '', qr{expected &lt;\{\Q$NS\E\}varColor&gt;, got &lt;\{\Q$NS\E\}varStruct}],
        'extra element' => [qr{</echo:varDateTime>}, '</echo:varDateTime><echo:extra/>', qr{unexpected &lt;extra&gt;}],
        'undeclared QName prefix' => [qr{echo:sample0}, 'zz:sample0', qr{prefix 'zz' is not declared}],
    );
    for my $name (sort keys %bad) {
        my ($from, $to, $message) = @{$bad{$name}};
        (my $body = $request) =~ s/$from/$to/;
        faults_with($body, $message, $name);
    }
    faults_with(envelope('<e:echoString><text>x</text></e:echoString>'), qr{got &lt;text&gt;}, 'unqualified child');
    faults_with(envelope('<e:echoString><e:text xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></e:echoString>'),
                qr{is nil}, 'nil text');
    faults_with(envelope('<x:echoString xmlns:x="urn:x"><x:text>a</x:text></x:echoString>'), qr{No service for namespace 'urn:x'}, 'other namespace');
    faults_with('garbage<<', qr{not well-formed}, 'not XML');
    faults_with('', qr{no element found}, 'empty body');
};

subtest 'integer ranges at their ends' => sub {
    my %range = (byte => ['-128', '127'], unsignedLong => ['0', '18446744073709551615']);
    for (['-128', 'byte', 1], ['-129', 'byte', 0], ['127', 'byte', 1], ['+0127', 'byte', 1], ['128', 'byte', 0],
         ['-0', 'unsignedLong', 1], ['-1', 'unsignedLong', 0], ['18446744073709551615', 'unsignedLong', 1],
         ['18446744073709551616', 'unsignedLong', 0], ['99999999999999999999', 'unsignedLong', 0]) {
        my ($text, $type, $in) = @$_;
        is(!!SoapBench::EchoService::integer_in_range($text, $range{$type}), !!$in, "$text as $type");
    }
};

done_testing;
