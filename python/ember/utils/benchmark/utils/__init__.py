"""The modules of ember.utils.benchmark, at torch.utils.benchmark.utils' paths: common (TaskSpec,
Measurement, select_unit, ...), timer (Timer), compare (Compare), fuzzer (Fuzzer)."""
