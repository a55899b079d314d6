// Spawning normrt-serve for the load test (being written).
