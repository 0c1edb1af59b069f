<?php
// php -S router: POST /echo (and GET /echo?wsdl) go to SoapServer; every other path
// gets 404. Never returns false, so php -S serves no file of its own.
declare(strict_types=1);

require __DIR__ . '/echo-service.php';

if (parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH) !== '/echo') {
    http_response_code(404);
    return true;
}

// A body over post_max_size (16M, as soapbench-server's limit) reaches SoapServer,
// which then answers 200 with nothing: say 413 instead. php -S has read the whole
// body by now (it has no limit of its own); PHP only flags it, at request start-up.
$startup = error_get_last();
if ((int) ($_SERVER['CONTENT_LENGTH'] ?? 0) > ini_parse_quantity(ini_get('post_max_size'))
    || ($startup !== null && str_contains($startup['message'], 'exceeds the limit'))) {
    http_response_code(413);
    return true;
}

// WSDL mode. The parsed WSDL is cached in this worker's memory and on disk
// (serve sets soap.wsdl_cache_dir), so a request does not parse echo.wsdl again.
$server = new SoapServer(dirname(__DIR__, 2) . '/wsdl/echo.wsdl', [
    'cache_wsdl' => WSDL_CACHE_BOTH,
    'typemap' => Soapbench\Peer\typemap(),
]);
$server->setObject(new Soapbench\Peer\EchoService());
$server->handle(Soapbench\Peer\request_text());
return true;
