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

// GET /echo?wsdl: the contract with its soap:address set to where the client
// reached this peer ("http://" + its Host header + /echo), as soapbench-server
// serves it, so that a client built from it calls this peer on whatever port it
// runs; SoapServer would serve the file's own address. A Host that is not a host
// name or IP literal and port gets the address the request came in on.
if (($_SERVER['REQUEST_METHOD'] ?? '') === 'GET' && strtolower($_SERVER['QUERY_STRING'] ?? '') === 'wsdl') {
    $host = $_SERVER['HTTP_HOST'] ?? '';
    if (!preg_match('/^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$/', $host)) {
        $host = $_SERVER['SERVER_NAME'] . ':' . $_SERVER['SERVER_PORT'];
    }
    $wsdl = file_get_contents(dirname(__DIR__, 2) . '/wsdl/echo.wsdl');
    $wsdl = preg_replace('/(<[A-Za-z0-9_]*:?address\s+location=")[^"]*(")/', '${1}http://' . $host . '/echo${2}', $wsdl, 1);
    header('Content-Type: text/xml; charset=utf-8');
    echo $wsdl;
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
