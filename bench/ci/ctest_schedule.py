#!/usr/bin/env python3
# A model of ctest -j N's scheduling, for bench/results/ci.md:
#   ctest_schedule.py TESTS.json CTestCostData.txt before|history|after N
# TESTS.json: `ctest --show-only=json-v1` of a build (its RUN_SERIAL properties); the cost file: a
# run's Testing/Temporary/CTestCostData.txt (each test's seconds). before: a clean clone (no cost
# file: declaration order); history: ordered by the cost file; after: the smpi tests but closed_loop
# not serial, and the COST properties of tests/*/CMakeLists.txt (below). Prints the wall time.
# Simulate ctest -j N scheduling (cmCTestMultiProcessHandler::StartNextTests): tests in descending
# COST order (stable: declaration order), a RUN_SERIAL test starts only when nothing runs and blocks
# every other start while it runs. Durations: a previous run's CTestCostData.txt.
import json, sys, heapq
tests_json, cost_file, mode, N = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
dur = {}
for l in open(cost_file):
    p = l.split()
    if len(p) == 3: dur[p[0]] = float(p[2])
COST = {'smpi.corpus':115,'hardening.outputs.kill':51,'analyze_cli_html':35,'smpi.progress':34,'smpi.truth':28,
        'smpi.two_node_leaves':18,'convert.memory_limit':17,'smpi.concurrent':16,'analyze_cli_mpi_same_answers':15,
        'analyze_cli_same_answers':13,'analyze_cli_html_key':12,'smpi.compare_heldout':10}
tests = []
for t in json.load(open(tests_json))['tests']:
    pr = {x['name']: x['value'] for x in t.get('properties', [])}
    serial = bool(pr.get('RUN_SERIAL', False))
    cost = 0
    if mode == 'after':
        if t['name'].startswith('smpi.') and t['name'] != 'smpi.closed_loop': serial = False
        cost = COST.get(t['name'], 0)
    if mode == 'history': cost = dur.get(t['name'], 0)
    tests.append((t['name'], dur.get(t['name'], 0.5), serial, cost))
order = sorted(range(len(tests)), key=lambda i: -tests[i][3])
pending = [tests[i] for i in order]
now, running, serial_running = 0.0, [], False
while pending or running:
    started = False
    if not serial_running:
        for t in list(pending):
            if len(running) >= N or serial_running: break
            if t[2] and running: continue
            pending.remove(t); heapq.heappush(running, (now + t[1], t[0], t[2])); started = True
            if t[2]: serial_running = True
    end, name, s = heapq.heappop(running)
    now = end
    if s: serial_running = False
print(f"{mode}: -j{N} wall {now:.0f} s, sum {sum(t[1] for t in tests):.0f} s, serial {sum(t[1] for t in tests if t[2] and (mode!='after' or not t[0].startswith('smpi.') or t[0]=='smpi.closed_loop')):.0f} s")
