"""Stage 2, estimate: what each workload needs on each GPU type.

Takes a ``domain.Scenario``; hands on one ``results.PairEstimate`` per workload ×
GPU type (memory, GPUs per replica, GPU-hours or serving capacity and latency,
or why the pair is ruled out). Measured ``Throughput`` rows win over estimates.
Pure arithmetic: nothing here knows about the MILP.
"""
