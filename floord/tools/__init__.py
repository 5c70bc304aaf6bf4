"""The tools beside the daemon: ACL, udev rules, status, capture."""
