#!/usr/bin/env node
// Not a benchmark: the false-alarm figures docs/ci.md gives for `siegesim test`'s decision rule
// (src/api/test.ts), by simulating the estimate's path. An at_least bound sits `delta` first-look
// standard errors below the true value (0: the truth exactly on the bound); the assertion is
// looked at after 1, 2, 4, 8 and 16 times the first look's trials (the estimate's error is a
// Brownian motion observed at those times), passes when the 99.9% interval clears the bound,
// FAILs when it lies wholly below it, and is inconclusive when still straddling at the cap.
//
//   node bench/false-alarm.mjs [paths]        # default 2e7 paths per delta; ~1 minute
const PATHS = Number(process.argv[2]) || 2e7;
const Z = 3.2905267314919255; // two-sided 99.9%
const LOOKS = [1, 2, 4, 8, 16];

let s = 0x2545f491;
const u = () => {
  s ^= s << 13;
  s ^= s >>> 17;
  s ^= s << 5;
  return ((s >>> 0) + 0.5) / 4294967296;
};
const gauss = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());

console.log(`paths ${PATHS.toExponential(1)}, looks at ${LOOKS.join(', ')} x the first, z ${Z.toFixed(4)}`);
for (const delta of [0, 0.5, 1, 2]) {
  let fail = 0;
  let pass = 0;
  for (let i = 0; i < PATHS; i++) {
    let w = 0;
    let t = 0;
    for (const look of LOOKS) {
      w += gauss() * Math.sqrt(look - t);
      t = look;
      const z = w / Math.sqrt(t) + delta * Math.sqrt(t); // (estimate - bound) / SE at this look
      if (z >= Z) {
        pass++;
        break;
      }
      if (z < -Z) {
        fail++;
        break;
      }
    }
  }
  const f = (k) => `${(k / PATHS).toExponential(2)}`;
  console.log(`truth ${delta} SE inside the bound: FAIL ${f(fail)}  pass ${(pass / PATHS).toFixed(4)}  inconclusive ${((PATHS - pass - fail) / PATHS).toFixed(4)}`);
}
