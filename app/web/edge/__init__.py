"""The edge between the socket and the routes: the bounded HTTP protocol, the middlewares
(security headers, body limit, HEAD), JSON request and response bodies, the one error
shape, and the lean route class of the hot endpoints."""
