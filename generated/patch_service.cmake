# Run by generated/CMakeLists.txt after soapcpp2 (cmake -P, with FILE set to
# soapEchoBindingService.cpp): two edits to the generated dispatch, which soapcpp2
# has no option for. Each was measured with scripts/bench-instructions.
#  - dispatch() calls EchoBindingService_init, i.e. soap_set_namespaces, for every
#    request: a malloc'd copy of the table and a rebuilt namespace stack, though
#    soap_begin_recv has just copied it afresh (soap_free_temp frees the copy). It calls
#    soapbench_input_namespaces instead (generated/namespaces.cpp), which
#    restores the table only when the last message changed it.
#  - every response declared all five namespaces of the table; before a response is
#    written, soapbench_output_namespaces leaves only those document/literal uses
#    (soap_begin_recv copies the table afresh for the next message).
# A generated file that no longer has these lines fails the build: look at what
# soapcpp2 now writes and update the edits.
file(READ "${FILE}" text)
set(init "\tEchoBindingService_init(soap->imode, soap->omode);\n\t(void)soap_peek_element(soap);")
set(literal "\tsoap->encodingStyle = NULL; /* use SOAP literal style */\n")
string(FIND "${text}" "${init}" at)
string(FIND "${text}" "${literal}" at2)
if(at EQUAL -1 OR at2 EQUAL -1)
  message(FATAL_ERROR "${FILE}: soapcpp2's dispatch() is not as generated/patch_service.cmake expects")
endif()
string(REPLACE "${init}" "\tsoapbench_input_namespaces(soap);\n\t(void)soap_peek_element(soap);" text "${text}")
string(REPLACE "${literal}" "${literal}\tsoapbench_output_namespaces(soap);\n" text "${text}")
string(REPLACE "#include \"soapEchoBindingService.h\"\n"
       "#include \"soapEchoBindingService.h\"\n#include \"soapbench/namespaces.h\"\n" text "${text}")
file(WRITE "${FILE}" "${text}")
