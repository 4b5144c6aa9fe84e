"""What the services run on: the pub/sub hub, the rules runner, the clock and the timers."""
