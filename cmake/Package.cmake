# The Debian package of soapbench for a test host (scripts/package builds it):
# the programs in /usr/bin, the server's systemd unit and its flags file, the
# contract and the README. The peers/ stacks are not in it: `soapbench stacks`,
# `compare-stacks` and `--stack` need a source tree (SOAPBENCH_PEERS_DIR).
include(GNUInstallDirs)
install(FILES service/deploy/soapbench-server.service DESTINATION lib/systemd/system)
install(FILES service/deploy/soapbench-server.default DESTINATION /etc/default RENAME soapbench-server)
install(FILES wsdl/echo.wsdl DESTINATION ${CMAKE_INSTALL_DATADIR}/soapbench/wsdl)
install(DIRECTORY wsdl/examples DESTINATION ${CMAKE_INSTALL_DATADIR}/soapbench/wsdl)
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME soapbench)
set(CPACK_PACKAGE_VENDOR "soapbench")
set(CPACK_PACKAGE_CONTACT "soapbench developers <soapbench@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "SOAP performance harness: the gSOAP echo server and the ramp driver")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
# Runtime libraries from the binaries themselves (dpkg-shlibdeps, from dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# soapbench requests runs wsdl2h and soapcpp2; plot runs gnuplot.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gsoap, gnuplot-nox")
# /etc/default/soapbench-server is the admin's: kept on upgrade and removal.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_SOURCE_DIR}/service/deploy/conffiles")
set(CPACK_STRIP_FILES ON)
include(CPack)

# What the package installs, built by scripts/package without the tests and
# benchmarks (`install` would otherwise build everything first).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
add_custom_target(installed_programs)
add_dependencies(installed_programs soapbench soapbench-server soapbench-echo-server soapbench-chat-server)
if(TARGET soapbench-mpi)
  add_dependencies(installed_programs soapbench-mpi)
endif()
