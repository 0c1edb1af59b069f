# SOAP::Lite's HTTP daemon (SOAP::Transport::HTTP::Daemon, on HTTP::Daemon)
# with a pool of pre-forked worker processes, at most max_children.
#
# The stock daemon serves one connection at a time: with HTTP/1.1 keep-alive
# a second client waits until the first one hangs up. Forking a child per
# connection (SOAP::Lite's ForkOnAccept example) makes every new connection
# pay a fork of the whole Perl process. Here, as in Apache's prefork, workers
# are forked ahead and each serves one connection at a time, for as long as
# its client keeps it alive; the parent keeps spare_children of them idle,
# forking more as connections arrive, up to max_children. The pool does not
# shrink. Connections beyond max_children wait in the listen queue.
package SoapBench::PreforkDaemon;

use strict;
use warnings;

use IO::Select;
use POSIX ();
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use SOAP::Transport::HTTP;
use SoapBench::EchoService ();

our @ISA = ('SOAP::Transport::HTTP::Daemon');

# Workers tell the parent about each connection on a pipe: a 5-byte message,
# their pid and B (busy: accepted one) or I (idle: done with it). Writes of
# up to PIPE_BUF bytes are atomic, so messages never interleave.
my $MESSAGE = 'N a';
my $MESSAGE_BYTES = 5;

# Runs until killed. %options: spare_children, max_children, idle_timeout
# (seconds a kept-alive connection may be idle), path (any other gets 404).
sub serve_forever {
    my ($self, %options) = @_;
    pipe(my $from_workers, my $to_parent) or die "pipe: $!\n";
    my %idle;  # worker pid => 1 when idle, 0 when serving a connection
    my $reap = sub { while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) { delete $idle{$pid} } };
    local $SIG{CHLD} = $reap;
    my $messages = IO::Select->new($from_workers);
    while (1) {
        $reap->();
        my $idle_count = grep { $_ } values %idle;
        while ($idle_count < $options{spare_children} && keys %idle < $options{max_children}) {
            my $pid = fork;
            if (!defined $pid) {
                warn "fork: $!\n";
                last;
            }
            if (!$pid) {
                close $from_workers;
                $self->work($to_parent, %options);
                POSIX::_exit(0);
            }
            $idle{$pid} = 1;
            $idle_count++;
        }
        # A second at most, so that a worker that died gets replaced even when
        # no other worker has anything to say.
        next unless $messages->can_read(1);
        my $read = sysread($from_workers, my $buffer, 1000 * $MESSAGE_BYTES) or next;
        for my $message (unpack "(a$MESSAGE_BYTES)*", $buffer) {
            my ($pid, $state) = unpack $MESSAGE, $message;
            $idle{$pid} = $state eq 'I' ? 1 : 0 if exists $idle{$pid};
        }
    }
}

# A worker: one connection at a time, until the parent is gone.
sub work {
    my ($self, $to_parent, %options) = @_;
    $SIG{CHLD} = 'DEFAULT';
    $SIG{PIPE} = 'IGNORE';  # a client or parent gone is a failed write, not a kill
    while (1) {
        my $connection = $self->accept('SoapBench::Connection') or do {
            select(undef, undef, undef, 0.1);  # e.g. out of file descriptors: no busy loop
            next;
        };
        my $parent_alive = syswrite($to_parent, pack($MESSAGE, $$, 'B'));
        $self->serve_connection($connection, %options);
        syswrite($to_parent, pack($MESSAGE, $$, 'I')) && $parent_alive or return;
    }
}

# Every request of one keep-alive connection, until the client closes it or
# stays idle for idle_timeout seconds.
sub serve_connection {
    my ($self, $connection, %options) = @_;
    # Headers and body leave in one write (SoapBench::Connection), and with
    # TCP_NODELAY no response waits for the client's delayed ACK.
    setsockopt($connection, IPPROTO_TCP, TCP_NODELAY, 1);
    $connection->timeout($options{idle_timeout});  # get_request's wait for data
    while (my $request = $connection->get_request) {
        if ($request->uri->path ne $options{path}) {
            $connection->send_error(404, "No SOAP service at this path; it is $options{path}");
            next;
        }
        $self->request($request);
        $self->SOAP::Transport::HTTP::Server::handle;
        $connection->send_response($self->response) or last;
        $self->restore_soap_version;
    }
    $connection->close;
}

# SOAP::Lite answers a SOAP 1.2 envelope in SOAP 1.2 and keeps that version,
# process-wide, for what follows, resetting its serializer's namespaces and
# encodingStyle on the way. Back to SOAP 1.1 and the literal serializer.
sub restore_soap_version {
    my $self = shift;
    return if SOAP::Lite->soapversion == 1.1;
    SOAP::Lite->soapversion(1.1);
    SoapBench::EchoService::configure($self);
}


# A connection whose responses leave in one write: HTTP::Daemon prints the
# status line, each header and the body separately, which on an unbuffered
# socket is one send() each.
package SoapBench::Connection;

use strict;
use warnings;

our @ISA = ('HTTP::Daemon::ClientConn');

sub send_response {
    my $self = shift;
    $self->autoflush(0);
    $self->SUPER::send_response(@_);
    my $sent = $self->flush;
    $self->autoflush(1);
    return $sent;
}

1;
