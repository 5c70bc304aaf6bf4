"""floord: the table-side daemon.

Device bytes come in through driver adapters, become normalised events, pass the
game engine's regulated procedures, are journaled, and go out over MQTT.
"""

__version__ = "0.2.0"
