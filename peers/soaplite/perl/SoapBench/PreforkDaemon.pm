# SOAP::Lite's HTTP daemon (SOAP::Transport::HTTP::Daemon, on HTTP::Daemon)
# forking one child per connection, at most max_children at once.
#
# The stock daemon serves one connection at a time: with HTTP/1.1 keep-alive
# a second client waits until the first one hangs up. SOAP::Lite's examples
# fork per connection without a bound and never reap the children; this
# bounds them, reaps them, and keeps each connection alive for as long as
# its client sends requests within idle_timeout seconds.
package SoapBench::ForkingDaemon;

use strict;
use warnings;

use POSIX ();
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use SOAP::Transport::HTTP;
use SoapBench::EchoService ();

our @ISA = ('SOAP::Transport::HTTP::Daemon');

sub http_daemon_class { 'SoapBench::HTTPDaemon' }

# Runs until killed. %options: max_children, idle_timeout (seconds), path
# (requests for any other path get 404).
sub serve_forever {
    my ($self, %options) = @_;
    my %children;
    my $reap = sub { while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) { delete $children{$pid} } };
    # accept() returns early (EINTR) when a child ends; the loop reaps and goes on.
    local $SIG{CHLD} = $reap;
    while (1) {
        $reap->();
        while (keys %children >= $options{max_children}) {  # full: wait for one to end
            my $pid = waitpid(-1, 0);
            last if $pid < 0;
            delete $children{$pid};
        }
        my $connection = $self->accept('SoapBench::Connection') or next;
        my $pid = fork;
        if (!defined $pid) {
            warn "fork: $!\n";
            $connection->close;
            sleep 1;
            next;
        }
        if ($pid) {
            $children{$pid} = 1;
            $connection->close;
            next;
        }
        $SIG{CHLD} = 'DEFAULT';
        $SIG{PIPE} = 'IGNORE';  # a client gone mid-response is a failed write, not a kill
        $self->close;           # the listening socket is the parent's
        $self->serve_connection($connection, %options);
        POSIX::_exit(0);
    }
}

# In the child: every request of one keep-alive connection, then exit.
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


# HTTP::Daemon makes every request's URI absolute with the daemon's URL,
# which it reads from the listening socket: in a child, which has closed
# that socket, it would be undefined. Read once, in the parent.
package SoapBench::HTTPDaemon;

use strict;
use warnings;

use HTTP::Daemon;

our @ISA = ('HTTP::Daemon');

sub url {
    my $self = shift;
    return ${*$self}{soapbench_url} //= $self->SUPER::url;
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
