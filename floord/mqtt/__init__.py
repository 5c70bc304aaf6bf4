"""floord's MQTT side: one link per table that publishes the journal and takes commands.

It never imports the engine: the daemon hands it the journal, callables for the
retained state, and a callable for raw commands.
"""

from floord.mqtt.backoff import Backoff
from floord.mqtt.link import TableLink

__all__ = ["Backoff", "TableLink"]
