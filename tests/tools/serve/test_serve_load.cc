// The load test (being written).
