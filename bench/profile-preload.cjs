// Loaded into the service by bench/storage-create-profile.mjs (`--require`): the first SIGUSR2 starts a V8 CPU profile
// and a sampling heap profile that keeps the objects the collector freed (what a request allocates, not what it keeps);
// the second stops both and writes them to PROFILE_OUT.cpuprofile and PROFILE_OUT.heapprofile.
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');

const session = new Session();
session.connect();
let on = false;
process.on('SIGUSR2', () => {
  const out = process.env.PROFILE_OUT;
  if (!on) {
    on = true;
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 200) });
    session.post('Profiler.start');
    session.post('HeapProfiler.enable');
    session.post('HeapProfiler.startSampling', {
      samplingInterval: Number(process.env.HEAP_SAMPLING_BYTES ?? 4096),
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return;
  }
  on = false;
  session.post('Profiler.stop', (err, { profile }) => {
    if (!err) writeFileSync(`${out}.cpuprofile`, JSON.stringify(profile));
  });
  session.post('HeapProfiler.stopSampling', (err, { profile }) => {
    if (!err) writeFileSync(`${out}.heapprofile`, JSON.stringify(profile));
  });
});
