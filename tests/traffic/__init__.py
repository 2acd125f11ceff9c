"""Small clients of the interface written for the traffic tests (clients.py), and the bundled
server, varied or not, and the proxy, each served on a free loopback port in a thread
(running.py)."""
