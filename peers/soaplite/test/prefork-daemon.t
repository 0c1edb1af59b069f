#!/usr/bin/perl
# SoapBench::ForkingDaemon on a loopback port: keep-alive, the bound on
# children, the idle timeout, 404 off the endpoint path, children reaped.
# About 5 s. Run: prove peers/soaplite/test
use strict;
use warnings;

use FindBin ();
use lib "$FindBin::RealBin/../perl";

use IO::Select;
use IO::Socket::INET;
use POSIX ();
use Test::More;
use Time::HiRes qw(time sleep);

use SoapBench::EchoService;
use SoapBench::ForkingDaemon;

my $daemon = SoapBench::ForkingDaemon->new(LocalAddr => '127.0.0.1', LocalPort => 0, ReuseAddr => 1, Listen => 16)
    or die "listen: $!";
SoapBench::EchoService::configure($daemon);
my $port = $daemon->sockport;

my $server = fork // die "fork: $!";
if (!$server) {
    setpgrp(0, 0);  # its own group, so that the end of the test ends all of it
    $daemon->serve_forever(max_children => 2, idle_timeout => 3, path => '/echo');
    POSIX::_exit(0);
}
$daemon->close;
END { local $?; kill TERM => -$server if $server; waitpid($server, 0) if $server }  # keeps the exit status

my $body = qq{<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:e="urn:soapbench:echo:1">}
         . '<s:Body><e:echoString><e:text>keep me</e:text></e:echoString></s:Body></s:Envelope>';

sub connection { IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) or die "connect: $!" }

sub send_request {
    my ($socket, $path) = @_;
    print $socket "POST $path HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: "
                . length($body) . "\r\n\r\n$body";
}

# What arrives on $socket within $seconds: a status line, 'closed' or 'nothing'.
sub answer {
    my ($socket, $seconds) = @_;
    return 'nothing' unless IO::Select->new($socket)->can_read($seconds);
    my $n = sysread($socket, my $data, 65536);
    return 'closed' unless $n;
    my ($length) = $data =~ /Content-Length: (\d+)/i;
    while ($length && length($data) < index($data, "\r\n\r\n") + 4 + $length) {  # the rest of the body
        IO::Select->new($socket)->can_read($seconds) && sysread($socket, $data, 65536, length $data) or last;
    }
    my ($status) = $data =~ /^(HTTP\/1\.1 \d+)/ or return "garbage: $data";
    return $data =~ /keep me/ ? "$status echoed" : $status;
}

sub children_of { my $pid = shift; grep { /\d/ } split /\s+/, `ps -o pid= --ppid $pid` }

my ($first, $second, $third) = map { connection() } 1 .. 3;
for my $round (1, 2) {
    send_request($_, '/echo') for $first, $second;
    is(answer($first, 5), 'HTTP/1.1 200 echoed', "first connection, request $round");
    is(answer($second, 5), 'HTTP/1.1 200 echoed', "second connection, request $round (kept alive)");
}
send_request($third, '/echo');
is(answer($third, 0.5), 'nothing', 'a third connection waits while two children serve');
is(scalar(children_of($server)), 2, 'two children');

close $first;
is(answer($third, 5), 'HTTP/1.1 200 echoed', 'and is served once the first one closes');

send_request($third, '/other');
is(answer($third, 5), 'HTTP/1.1 404', 'other paths: 404');

my $idle_since = time;
is(answer($second, 5), 'closed', 'an idle connection is closed by the server');
cmp_ok(time - $idle_since, "<", 5, "... after about the idle timeout (3 s)");

close $_ for $second, $third;
my $deadline = time + 5;
sleep 0.1 while children_of($server) && time < $deadline;
is(scalar(children_of($server)), 0, 'children reaped after their connections end');

done_testing;
