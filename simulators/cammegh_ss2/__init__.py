"""The Cammegh SS2 wheel's twin: host session, wire bytes, statistics."""
