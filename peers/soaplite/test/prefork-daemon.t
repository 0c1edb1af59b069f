#!/usr/bin/perl
# SoapBench::PreforkDaemon on a loopback port: keep-alive, the pool growing
# to its bound and no further, workers reused across connections, the idle
# timeout, 404 off the endpoint path. About 5 s. Run: prove peers/soaplite/test
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
use SoapBench::PreforkDaemon;

my $daemon = SoapBench::PreforkDaemon->new(LocalAddr => '127.0.0.1', LocalPort => 0, ReuseAddr => 1, Listen => 16)
    or die "listen: $!";
SoapBench::EchoService::configure($daemon);
my $port = $daemon->sockport;

my $server = fork // die "fork: $!";
if (!$server) {
    setpgrp(0, 0);  # its own group, so that the end of the test ends all of it
    open STDOUT, '>', '/dev/null' or die;  # prove reads the test's output to its end
    $daemon->serve_forever(spare_children => 1, max_children => 2, idle_timeout => 3, path => '/echo');
    POSIX::_exit(0);
}
$daemon->close;
$SIG{PIPE} = 'IGNORE';  # a write to a connection the server closed fails the test, not the process
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

sub workers { my @pids = grep { /\d/ } split /\s+/, `ps -o pid= --ppid $server`; return sort { $a <=> $b } @pids }

sub worker_count { my @pids = workers(); return scalar @pids }

sub wait_for_workers {  # until there are $_[0] workers, or 5 s
    my $deadline = time + 5;
    sleep 0.05 while worker_count() != $_[0] && time < $deadline;
    return worker_count();
}

is(wait_for_workers(1), 1, 'the pool starts with spare_children (1) workers');

my ($first, $second, $third) = map { connection() } 1 .. 3;
for my $round (1, 2) {
    send_request($_, '/echo') for $first, $second;
    is(answer($first, 5), 'HTTP/1.1 200 echoed', "first connection, request $round");
    is(answer($second, 5), 'HTTP/1.1 200 echoed', "second connection, request $round (kept alive)");
}
is(wait_for_workers(2), 2, 'the pool grew to max_children (2) for two connections');

send_request($third, '/echo');
is(answer($third, 0.5), 'nothing', 'a third connection waits while both workers serve');
is(worker_count(), 2, 'and the pool does not grow beyond max_children');

close $first;
is(answer($third, 5), 'HTTP/1.1 200 echoed', 'it is served once the first one closes');

send_request($third, '/other');
is(answer($third, 5), 'HTTP/1.1 404', 'other paths: 404');

my $idle_since = time;
is(answer($second, 5), 'closed', 'an idle connection is closed by the server');
cmp_ok(time - $idle_since, '<', 5, '... after about the idle timeout (3 s)');
close $_ for $second, $third;

my @before = workers();
my @answers;
for (1 .. 10) {  # a new connection per call
    my $socket = connection();
    send_request($socket, '/echo');
    push @answers, answer($socket, 5);
    close $socket;
}
is_deeply(\@answers, [('HTTP/1.1 200 echoed') x 10], 'ten new connections, one call each');
is_deeply([workers()], \@before, '... served by the same workers, no fork per connection');

done_testing;
