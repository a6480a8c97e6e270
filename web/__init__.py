"""The web page for people: HTTP and WebSocket, seats, the order builder, static files. It
attaches to a running server through the server's public API."""
