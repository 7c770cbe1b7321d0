// A tiny TLS server speaking HTTP/2 (and HTTP/1.1 by ALPN fallback, or only HTTP/1.1
// with --http1), for tests/integration/test_k8s_transport.py: it checks what kubesim
// (Python's http.server, HTTP/1.1 only) cannot — that the C client negotiates HTTP/2
// and multiplexes many streams on one connection — and shows what the client presented
// (TLS client certificate, Authorization kind, SNI).
//
//   node h2server.js --cert C --key K [--ca CA] [--http1]
// prints "PORT <n>" when listening. Routes:
//   GET /whoami   {"http": "2.0", "cn": <client cert CN or null>, "auth": "Bearer"|null, "sni": ...}
//   GET /watch    200, one line, then stays open (a watch)
//   GET /stats    {"sessions": <TLS connections so far>, "requests": <requests so far>}
'use strict';
const fs = require('fs');
const http2 = require('http2');
const https = require('https');

const args = process.argv.slice(2);
const opt = (name) => {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
};
const tlsOptions = {
	cert: fs.readFileSync(opt('--cert')),
	key: fs.readFileSync(opt('--key')),
	requestCert: Boolean(opt('--ca')),
	rejectUnauthorized: false,
	allowHTTP1: true,
};
if (opt('--ca'))
	tlsOptions.ca = fs.readFileSync(opt('--ca'));

let sessions = 0;
let requests = 0;

function handler(req, res) {
	requests++;
	const sock = req.socket;
	if (req.url === '/whoami') {
		const peer = sock.getPeerCertificate ? sock.getPeerCertificate() : null;
		const auth = req.headers.authorization ? req.headers.authorization.split(' ')[0] : null;
		res.writeHead(200, {'content-type': 'application/json'});
		res.end(JSON.stringify({
			http: req.httpVersion,
			cn: peer && peer.subject ? peer.subject.CN : null,
			auth: auth,
			sni: sock.servername || null,
			host: req.headers.host || req.headers[':authority'] || null,
		}) + '\n');
	} else if (req.url === '/watch') {
		res.writeHead(200, {'content-type': 'application/json'});
		res.write('{"type":"ADDED","object":{"kind":"Pod"}}\n');
	} else if (req.url === '/stats') {
		res.writeHead(200, {'content-type': 'application/json'});
		res.end(JSON.stringify({sessions: sessions, requests: requests}) + '\n');
	} else {
		res.writeHead(404, {'content-type': 'application/json'});
		res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"the server could not find the requested resource"}');
	}
}

const server = args.includes('--http1') ? https.createServer(tlsOptions, handler)
	: http2.createSecureServer(tlsOptions, handler);
server.on('secureConnection', () => sessions++);
server.listen(0, '127.0.0.1', () => {
	process.stdout.write('PORT ' + server.address().port + '\n');
});
