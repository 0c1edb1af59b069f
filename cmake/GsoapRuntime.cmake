# gSOAP's runtime (stdsoap2): built in-tree from Debian's gsoap source package
# (SOAPBENCH_GSOAP_RUNTIME=source, the default) or Debian's prebuilt libgsoap++
# (system). Defines two targets that everything gSOAP links:
#
#   soapbench::gsoap_config   INTERFACE: the macros that shape struct soap and the
#                             runtime's include directory. Every translation unit
#                             that includes stdsoap2.h must see the same macros
#                             (WITH_NOIDREF, SOAP_PTRHASH, ... change its layout),
#                             so they live here and nowhere else.
#   soapbench::gsoap_runtime  the runtime itself, linking gsoap_config.
#
# and SOAPBENCH_GSOAP_RUNTIME_INFO, the one-line description that --version,
# /stats and results files report.
#
# The source comes from scripts/install-deps, which fetches the .dsc, the .orig
# tarball and the Debian diff of exactly the installed version into a cache
# folder outside the work tree; here the tarball's SHA-256 is checked against the
# .dsc and stdsoap2.cpp, stdsoap2.h and dom.cpp are unpacked into the build tree.
# Debian's patches do not touch these three files.

set(SOAPBENCH_GSOAP_RUNTIME source CACHE STRING
    "gSOAP runtime: source (stdsoap2.cpp built in-tree, tuned) or system (Debian's libgsoap++)")
set_property(CACHE SOAPBENCH_GSOAP_RUNTIME PROPERTY STRINGS source system)
if(NOT SOAPBENCH_GSOAP_RUNTIME MATCHES "^(source|system)$")
  message(FATAL_ERROR "SOAPBENCH_GSOAP_RUNTIME must be source or system, not '${SOAPBENCH_GSOAP_RUNTIME}'")
endif()

add_library(soapbench_gsoap_config INTERFACE)
add_library(soapbench::gsoap_config ALIAS soapbench_gsoap_config)

if(SOAPBENCH_GSOAP_RUNTIME STREQUAL "system")
  # Exactly as Debian built it: its flags (WITH_IPV6 WITH_DOM) from pkg-config.
  target_link_libraries(soapbench_gsoap_config INTERFACE PkgConfig::GSOAP)
  add_library(soapbench_gsoap_runtime INTERFACE)
  target_link_libraries(soapbench_gsoap_runtime INTERFACE soapbench_gsoap_config)
  add_library(soapbench::gsoap_runtime ALIAS soapbench_gsoap_runtime)
  set(SOAPBENCH_GSOAP_RUNTIME_INFO "system libgsoap++ ${GSOAP_VERSION} (${GSOAP_CFLAGS_OTHER})")
  string(REPLACE ";" " " SOAPBENCH_GSOAP_RUNTIME_INFO "${SOAPBENCH_GSOAP_RUNTIME_INFO}")
  return()
endif()

# ---- source: find, check and unpack ------------------------------------------
if(DEFINED ENV{SOAPBENCH_CACHE_DIR} AND NOT "$ENV{SOAPBENCH_CACHE_DIR}" STREQUAL "")
  set(cache "$ENV{SOAPBENCH_CACHE_DIR}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(cache "$ENV{XDG_CACHE_HOME}/soapbench")
else()
  set(cache "$ENV{HOME}/.cache/soapbench")
endif()
set(SOAPBENCH_GSOAP_SOURCE_DIR "${cache}/gsoap-source" CACHE PATH
    "Folder with Debian's gsoap source package (.dsc, .orig.tar.gz), filled by scripts/install-deps")

set(hint "run scripts/install-deps (it fetches Debian's gsoap source package of the installed \
version into ${SOAPBENCH_GSOAP_SOURCE_DIR}; set SOAPBENCH_CACHE_DIR to use another cache folder), \
or configure with -DSOAPBENCH_GSOAP_RUNTIME=system to link Debian's libgsoap++ instead")
file(GLOB dscs "${SOAPBENCH_GSOAP_SOURCE_DIR}/gsoap_${GSOAP_VERSION}-*.dsc")
if(NOT dscs)
  message(FATAL_ERROR "gSOAP ${GSOAP_VERSION} source package not found in "
          "${SOAPBENCH_GSOAP_SOURCE_DIR}: ${hint}")
endif()
list(SORT dscs)
list(GET dscs -1 dsc)
get_filename_component(dsc_name "${dsc}" NAME)
string(REGEX REPLACE "^gsoap_(.*)\\.dsc$" "\\1" debian_version "${dsc_name}")
set(orig "${SOAPBENCH_GSOAP_SOURCE_DIR}/gsoap_${GSOAP_VERSION}.orig.tar.gz")
file(STRINGS "${dsc}" sums REGEX "^ [0-9a-f]+ [0-9]+ gsoap_${GSOAP_VERSION}\\.orig\\.tar\\.gz$")
# Checksums-Sha1 lists the tarball too: keep the 64-digit (SHA-256) line.
set(sha256_line "")
foreach(line IN LISTS sums)
  string(REGEX REPLACE "^ ([0-9a-f]+) .*" "\\1" digits "${line}")
  string(LENGTH "${digits}" n)
  if(n EQUAL 64)
    set(sha256_line "${line}")
  endif()
endforeach()
set(sums "${sha256_line}")
if(NOT EXISTS "${orig}" OR NOT sums)
  message(FATAL_ERROR "${dsc}: no SHA-256 of the .orig tarball, or ${orig} is missing: ${hint}")
endif()
string(REGEX REPLACE "^ ([0-9a-f]+) .*" "\\1" want "${sums}")
set(unpacked "${PROJECT_BINARY_DIR}/gsoap-runtime")
set(stamp "${unpacked}/unpacked-from.sha256")
set(have "")
if(EXISTS "${stamp}")
  file(READ "${stamp}" have)
endif()
if(NOT have STREQUAL want OR NOT EXISTS "${unpacked}/stdsoap2.cpp")
  file(SHA256 "${orig}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${orig}: SHA-256 ${got} is not the ${want} of ${dsc}: delete it and ${hint}")
  endif()
  file(REMOVE_RECURSE "${unpacked}")
  file(ARCHIVE_EXTRACT INPUT "${orig}" DESTINATION "${unpacked}/tar"
       PATTERNS "gsoap-${GSOAP_VERSION}/gsoap/stdsoap2.cpp" "gsoap-${GSOAP_VERSION}/gsoap/stdsoap2.h"
                "gsoap-${GSOAP_VERSION}/gsoap/dom.cpp")
  foreach(f stdsoap2.cpp stdsoap2.h dom.cpp)
    file(RENAME "${unpacked}/tar/gsoap-${GSOAP_VERSION}/gsoap/${f}" "${unpacked}/${f}")
  endforeach()
  file(REMOVE_RECURSE "${unpacked}/tar")
  file(WRITE "${stamp}" "${want}")
  message(STATUS "gSOAP runtime: unpacked stdsoap2.cpp ${debian_version} into ${unpacked}")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${dsc}" "${orig}")

# The installed headers and the source must be the same gSOAP: soapcpp2 generates
# code for the installed version.
file(STRINGS "${unpacked}/stdsoap2.h" version_line REGEX "^#define GSOAP_VERSION [0-9]+")
string(REGEX REPLACE "^#define GSOAP_VERSION ([0-9]+).*" "\\1" source_version "${version_line}")
string(REGEX REPLACE "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$" "\\1" v1 "${GSOAP_VERSION}")
string(REGEX REPLACE "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$" "\\2" v2 "${GSOAP_VERSION}")
string(REGEX REPLACE "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$" "\\3" v3 "${GSOAP_VERSION}")
math(EXPR installed_version "${v1} * 100000 + ${v2} * 1000 + ${v3}")
if(NOT source_version STREQUAL installed_version)
  message(FATAL_ERROR "${unpacked}/stdsoap2.h is gSOAP ${source_version}, the installed soapcpp2 is "
          "${installed_version}: ${hint}")
endif()

# ---- source: the flags and the library ---------------------------------------
find_package(OpenSSL REQUIRED)
find_package(ZLIB REQUIRED)

# The tuning: each kept because it paid in callgrind's instructions per served
# echoString (scripts/bench-instructions; 2,000 exchanges, in memory) and the whole
# suite, zeep's round trip included, still passes. Same flags as Debian's library:
# 392,053; the same source as Debian's, so the runtime is no slower for being ours.
#   WITH_NOIDREF          309,447  kept: no id/href resolution, which document/literal
#                                  never uses (soap_resolve, the id hash per message)
#   SOAP_PTRHASH=32       211,764  kept: the pointer hash (4096 entries by default) is
#   SOAP_IDHASH=19                 cleared by soap_end for every message: a 32 KB
#                                  memset; only multi-ref serialization uses it
#   WITH_FAST             211,770  no gain: stdsoap2.h defines it already (2.7.15 on)
#   -O3                            already: CMake's Release flags are -O3 (-O2: 211,983)
#   LTO (runtime and      215,721  dropped: echoString 2% worse, echoStruct 2% better
#   generated code)                (SOAPBENCH_GSOAP_LTO=ON to try again)
#   SOAP_BUFLEN=16384     211,724  dropped: no gain in memory; the default 65536 reads
#                                  a large request in fewer system calls
#   SOAP_BLKLEN=4096      211,770  dropped: no gain
#   -fno-semantic-        214,576  dropped
#    interposition
# What is left is gSOAP's character-at-a-time XML: soap_string_in/soap_getutf8/
# soap_get parse the 1 KB string at about 85 instructions a byte, soap_string_out
# writes it at about 50.
set(SOAPBENCH_GSOAP_DEFINES
  # As Debian builds its gsoapssl++: TLS and compression for later work.
  WITH_IPV6 WITH_DOM WITH_OPENSSL WITH_GZIP
  # Tuned for document/literal, measured as above.
  WITH_NOIDREF SOAP_PTRHASH=32 SOAP_IDHASH=19)
# To measure another set (scripts/bench-instructions --bin on a second build dir):
# -DSOAPBENCH_GSOAP_MACROS="WITH_IPV6;...", which replaces all of the above.
set(SOAPBENCH_GSOAP_MACROS "" CACHE STRING
    "Replaces the macros the in-tree gSOAP runtime and every user of stdsoap2.h are built with (empty: the measured ones)")
if(SOAPBENCH_GSOAP_MACROS)
  set(SOAPBENCH_GSOAP_DEFINES ${SOAPBENCH_GSOAP_MACROS})
endif()
set(SOAPBENCH_GSOAP_OPTIONS "" CACHE STRING "Compile options of the in-tree gSOAP runtime and generated code")
option(SOAPBENCH_GSOAP_LTO "Link-time optimisation across the gSOAP runtime and the generated code" OFF)

target_compile_definitions(soapbench_gsoap_config INTERFACE ${SOAPBENCH_GSOAP_DEFINES})
# Before /usr/include, where libgsoap-dev's stdsoap2.h is: the same file, but the
# runtime is this one.
target_include_directories(soapbench_gsoap_config SYSTEM BEFORE INTERFACE "${unpacked}")

add_library(soapbench_gsoap_runtime STATIC "${unpacked}/stdsoap2.cpp" "${unpacked}/dom.cpp"
            "${PROJECT_SOURCE_DIR}/generated/gsoap_number_format.cpp")
add_library(soapbench::gsoap_runtime ALIAS soapbench_gsoap_runtime)
# Numbers as text through std::to_chars (generated/gsoap_number_format.cpp says
# why and which formats): echoStruct 278,106 -> 239,642 instructions per exchange
# (scripts/bench-instructions); echoString, which has no floating-point value, is unchanged.
option(SOAPBENCH_GSOAP_TO_CHARS "Format gSOAP's floating-point and integer values with std::to_chars" ON)
if(SOAPBENCH_GSOAP_TO_CHARS)
  set_source_files_properties("${unpacked}/stdsoap2.cpp" PROPERTIES
    COMPILE_OPTIONS "-include;${PROJECT_SOURCE_DIR}/generated/gsoap_number_format.h")
endif()
target_link_libraries(soapbench_gsoap_runtime PUBLIC soapbench_gsoap_config OpenSSL::SSL OpenSSL::Crypto
                      ZLIB::ZLIB Threads::Threads)
target_compile_options(soapbench_gsoap_runtime PRIVATE ${SOAPBENCH_GSOAP_OPTIONS} -w)
set_target_properties(soapbench_gsoap_runtime PROPERTIES POSITION_INDEPENDENT_CODE ON)
if(SOAPBENCH_GSOAP_LTO)
  set_target_properties(soapbench_gsoap_runtime PROPERTIES INTERPROCEDURAL_OPTIMIZATION ON)
endif()

list(JOIN SOAPBENCH_GSOAP_DEFINES " " defines)
set(SOAPBENCH_GSOAP_RUNTIME_INFO "source stdsoap2.cpp ${debian_version} (${defines}")
if(SOAPBENCH_GSOAP_TO_CHARS)
  string(APPEND SOAPBENCH_GSOAP_RUNTIME_INFO " to_chars")
endif()
if(SOAPBENCH_GSOAP_OPTIONS)
  list(JOIN SOAPBENCH_GSOAP_OPTIONS " " options)
  string(APPEND SOAPBENCH_GSOAP_RUNTIME_INFO " ${options}")
endif()
if(SOAPBENCH_GSOAP_LTO)
  string(APPEND SOAPBENCH_GSOAP_RUNTIME_INFO " LTO")
endif()
string(APPEND SOAPBENCH_GSOAP_RUNTIME_INFO ")")
