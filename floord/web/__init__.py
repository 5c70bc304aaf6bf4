"""`floord web`: the surveillance floor in a browser, served by floord itself.

One process subscribes to the floor once (the watch console's model and feed) and pushes
what changes to every browser over a WebSocket. The pages, their script and their style
ship in the wheel (`static/`): the floor has no internet. Acknowledging an alert is signed
in the browser with the operator's key; the server forwards the signed command and never
sees the key (docs/console.md, "The browser console").
"""
