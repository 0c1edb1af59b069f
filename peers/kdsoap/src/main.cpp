// kdsoap-echo-server: serves wsdl/echo.wsdl with KDSoap on BIND:PORT at /echo,
// until SIGTERM ends it (the default action: there is nothing to flush or save).
// peers/kdsoap/serve runs it; see peers/kdsoap/README.md.
#include <CLI/CLI.hpp>
#include <QCoreApplication>
#include <QHostAddress>
#include <KDSoapServer/KDSoapThreadPool.h>

#include <iostream>
#include <string>

#include "echo_server.h"

namespace {

struct Config {
  std::string bind = "127.0.0.1";  // address to listen on; never all interfaces unless asked
  unsigned port = 0;               // TCP port; 0 lets the kernel pick one (printed on start)
  unsigned threads = 4;            // KDSoapThreadPool threads, each an event loop over many sockets
  bool no_delay = true;            // TCP_NODELAY on accepted sockets
  bool restore_lossy = true;       // echoStruct: put back the request's text where KDSoap's types lose it
  std::string wsdl;                // WSDL file served at GET /echo?wsdl; empty for none
};

// Returns the exit code to end with, or -1 to go on.
int parse_args(int argc, char** argv, Config& c) {
  CLI::App app{"kdsoap-echo-server: wsdl/echo.wsdl served by KDSoap"};
  app.set_version_flag("--version", std::string("KDSoap ") + KDSOAP_PEER_KDSOAP_VERSION + ", Qt " + qVersion());
  std::string no_delay = "on";
  std::string restore_lossy = "on";
  const CLI::Validator ip_address(
      [](std::string& text) {
        return QHostAddress().setAddress(QString::fromStdString(text)) ? std::string()
                                                                       : "not an IP address: " + text;
      },
      "IP", "ip-address");
  app.add_option("--bind", c.bind, "Address to listen on")->check(ip_address)->capture_default_str();
  app.add_option("--port", c.port, "TCP port; 0 picks a free one")
      ->check(CLI::Range(0u, 65535u))->capture_default_str();
  app.add_option("--threads", c.threads, "Worker threads of the KDSoap thread pool")
      ->check(CLI::Range(1u, 256u))->capture_default_str();
  app.add_option("--nodelay", no_delay, "TCP_NODELAY on accepted sockets: on | off")
      ->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  app.add_option("--restore-lossy-fields", restore_lossy,
                 "echoStruct: copy the request's text of the fields KDSoap's types lose: on | off")
      ->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  app.add_option("--wsdl", c.wsdl, "WSDL file to serve at GET /echo?wsdl")->check(CLI::ExistingFile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "kdsoap-echo-server: " << e.what() << "\nRun with --help for the options.\n";
    return 2;
  }
  c.no_delay = no_delay == "on";
  c.restore_lossy = restore_lossy == "on";
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  if (const int code = parse_args(argc, argv, config); code >= 0) return code;
  const QHostAddress address(QString::fromStdString(config.bind));

  QCoreApplication app(argc, argv);
  KDSoapThreadPool pool;
  pool.setMaxThreadCount(static_cast<int>(config.threads));
  EchoServer server(config.no_delay, config.restore_lossy);
  server.setThreadPool(&pool);
  server.setPath(QStringLiteral("/echo"));
  if (!config.wsdl.empty())
    server.setWsdlFile(QString::fromStdString(config.wsdl), QStringLiteral("/echo?wsdl"));
  if (!server.listen(address, static_cast<quint16>(config.port))) {
    std::cerr << "kdsoap-echo-server: cannot listen on " << config.bind << ":" << config.port << ": "
              << server.errorString().toStdString() << "\n";
    return 1;
  }
  // KDSoapServer::endPoint() writes an IPv6 address without brackets.
  const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
                           ? QLatin1Char('[') + address.toString() + QLatin1Char(']')
                           : address.toString();
  std::cout << "kdsoap-echo-server: listening on http://" << host.toStdString() << ":" << server.serverPort()
            << server.path().toStdString() << " with "
            << config.threads << " threads, TCP_NODELAY " << (config.no_delay ? "on" : "off")
            << ", lossy fields restored " << (config.restore_lossy ? "on" : "off") << std::endl;
  return app.exec();
}
