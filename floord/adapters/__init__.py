"""Device adapters: in-process, remote over MQTT, and the adapter's link."""
