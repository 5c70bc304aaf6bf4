"""One definition per game: its config model, device slots, engine, driver options, wheel.

Like a Zigbee2MQTT converter defines a device model, `floord/games/<game>.py` says
everything floord needs to run a game beside its engine; `registry.py` lists them, and
the config, `floord check`, the daemon and the wheel analytics read it rather than
asking a table which game it plays.
"""
