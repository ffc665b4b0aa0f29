#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# PAPI's own high-level test programs (Debian's papi-examples: ctests/serial_hl.c, pthread_hl.c,
# omp_hl.c, validation_tests/fp_validation_hl.c; ftests/serial_hl.F where gfortran is here;
# ctests/mpi_hl.c and mpi_omp_hl.c with Open MPI's mpicc, run on 2 ranks by its mpirun, where
# papi-examples brought them), built as PAPI builds them (with its testlib) against libperfmon-papi instead of
# libpapi, run, and each output read by Debian's papi_hl_output_writer. The testlib's low-level
# calls come from tests/compat/papi_stand_in.c (libperfmon-papi has the high-level API only).
#   papi_examples.sh LIBPERFMON_PAPI STAND_IN
set -Eeuo pipefail
trap 'echo "papi examples: failed at line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
library=$1 stand_in=$2
examples=/usr/share/doc/papi-examples/examples
[ -d "$examples/ctests" ] || { echo "PAPI's examples are missing (Debian's papi-examples; scripts/install-deps installs it)"; exit 77; }
command -v papi_hl_output_writer >/dev/null || { echo "papi_hl_output_writer is missing (Debian's papi-tools)"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$examples"/testlib/*.c "$examples"/testlib/*.h "$examples"/ctests/{serial_hl,pthread_hl,omp_hl,mpi_hl,mpi_omp_hl}.c \
  "$examples"/validation_tests/{fp_validation_hl.c,flops_testcode.c,testcode.h} "$scratch/"
cp "$examples"/ftests/serial_hl.F "$scratch/fserial_hl.F" && cp "$examples"/testlib/{ftests_util.F,fpapi_test.h} "$scratch/"
cd "$scratch"
libdir=$(dirname "$library")
programs=(serial_hl pthread_hl omp_hl fp_validation_hl)
command -v gfortran >/dev/null && programs+=(fserial_hl)
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  programs+=(mpi_hl mpi_omp_hl)
else
  echo "papi examples: mpicc or mpirun is missing (Open MPI, which papi-examples brings): mpi_hl and mpi_omp_hl not run"
fi
for program in "${programs[@]}"; do
  # Each with what PAPI's Makefiles give it: the ctests do_loops.c, the validation tests their
  # testcode, the Fortran ones ftests_util.F and fpapi.h (Debian's libpapi-dev).
  run=("./$program")
  if [ "$program" = mpi_hl ] || [ "$program" = mpi_omp_hl ]; then
    mpicc -fopenmp -w -I. -o "$program" "$program.c" test_utils.c do_loops.c "$stand_in" "$library" \
      -Wl,-rpath,"$libdir" -lm
    # Two ranks on this machine, each writing its rank file; as root, Open MPI asks to be told twice.
    run=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun -np 2 --oversubscribe "./$program")
  elif [ "$program" = fserial_hl ]; then
    gcc -c -w -I. do_loops.c test_utils.c "$stand_in"
    gfortran -cpp -w -I. -I/usr/include -o "$program" fserial_hl.F ftests_util.F do_loops.o test_utils.o \
      "$(basename "$stand_in" .c).o" "$library" -Wl,-rpath,"$libdir"
  else
    helpers=do_loops.c
    [ "$program" = fp_validation_hl ] && helpers=flops_testcode.c
    gcc -fopenmp -w -I. -o "$program" "$program.c" test_utils.c "$helpers" "$stand_in" "$library" \
      -Wl,-rpath,"$libdir" -lpthread -lm
  fi
  out="$scratch/out-$program"
  # Their work is arithmetic: counted by the clock every machine has.
  log=$(PAPI_OUTPUT_DIRECTORY="$out" PAPI_EVENTS=perf::TASK-CLOCK OMP_NUM_THREADS=2 "${run[@]}" 2>&1) ||
    { echo "$program failed: $log" >&2; exit 1; }
  grep -q "PASSED" <<<"$log" || { echo "$program did not pass: $log" >&2; exit 1; }
  summary=$(cd "$out" && papi_hl_output_writer --source "$out/papi_hl_output")
  python3 - "$program" "$summary" <<'CHECK'
import json, sys
program, summary = sys.argv[1], json.loads(sys.argv[2])
# Each program's regions as PAPI's tests make them, and how many times each began: serial_hl's
# loop of 4, pthread_hl's 8 threads once each, omp_hl's 2 threads (OMP_NUM_THREADS) twice each,
# mpi_hl's 2 ranks once each, mpi_omp_hl's 2 ranks of 2 threads once each.
regions = {"serial_hl": {"do_flops": 4}, "pthread_hl": {"do_flops": 8}, "omp_hl": {"do_flops": 4, "do_flops_2": 4},
           "fp_validation_hl": {"matrix_multiply_classic": 1, "matrix_multiply_swapped": 1},
           "fserial_hl": {"main": 4}, "mpi_hl": {"do_flops": 2}, "mpi_omp_hl": {"do_flops": 4}}[program]
ranks = 2 if program.startswith("mpi") else 1
for name, count in regions.items():
    region = summary[name]
    # perf::TASK-CLOCK, which PAPI's writer shows as the region's CPU time (in hundredths of a second:
    # the Fortran loop's rounds to 0).
    assert region["Region count"] == count and region["CPU time in s"] >= 0, (program, region)
    assert region.get("Number of ranks", 1) == ranks, (program, region)
assert set(summary) == set(regions), (program, summary)
print(f"{program}: PASSED, papi_hl_output_writer: " + ", ".join(f"{n} x{summary[n]['Region count']}" for n in regions))
CHECK
done
