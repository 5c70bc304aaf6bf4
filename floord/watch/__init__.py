"""`floord watch`: a live surveillance console for every table on the floor.

The pure model (`model`, `table_view`, `streams`) reads the contract's topics and keeps
one view per table, checking each stream's `seq` for gaps and duplicates; the feed
(`feed`) drives it from MQTT and asks tables to replay what was missed; the textual app
(`app`) and the JSON-lines printer (`cli`) show it.
"""
