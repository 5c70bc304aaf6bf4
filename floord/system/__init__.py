"""What floord asks of the host: systemd notification and structured logs."""
