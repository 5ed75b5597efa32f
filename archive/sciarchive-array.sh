#!/bin/bash
# A Slurm job array over a list of FITS and SEG-Y files: array task i
# compresses and verifies the list's line i (from 0) with
# archive/sciarchive.py --one, and leaves its record in OUT/.sciarchive/;
# `sciarchive.py -o OUT --collect --list LIST` then names every file that
# failed or has no record.  Exit status: 0 done and verified, 1 failed.
#
#   ls /data/night/*.fits > list.txt
#   sbatch --array=0-$(( $(wc -l < list.txt) - 1 ))%32 \
#          archive/sciarchive-array.sh list.txt /archive/night
#   sacct -j JOBID --format=JobID,State,ExitCode     # which tasks failed
#   sbatch --array=3,17 archive/sciarchive-array.sh list.txt /archive/night
#   python3 archive/sciarchive.py -o /archive/night --collect --list list.txt
#
# Submit from the source tree (Slurm runs a copy of this script, so the
# driver is found from SLURM_SUBMIT_DIR), with GST_PLUGIN_PATH_1_0 naming
# the built elements.  SCIARCHIVE_ARGS adds options (--backend cpu,
# --min-snr 30).  For GPUs, ask Slurm for one a task (--gres=gpu:1): the
# coders take the device Slurm exposes.
#SBATCH --job-name=sciarchive
#SBATCH --cpus-per-task=4
#SBATCH --requeue
set -euo pipefail
list=${1:?usage: sciarchive-array.sh LIST OUT}
out=${2:?usage: sciarchive-array.sh LIST OUT}
driver=${SLURM_SUBMIT_DIR:-$(dirname "$0")/..}/archive/sciarchive.py
# shellcheck disable=SC2086  # SCIARCHIVE_ARGS is a list of options
exec "${PYTHON:-python3}" "$driver" -o "$out" --one "${SLURM_ARRAY_TASK_ID:?not an array task}" \
  --list "$list" ${SCIARCHIVE_ARGS:-}
