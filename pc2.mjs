import { pingFromChild } from '/work/main/dist/calibrate/pinger.js';
const med = (xs) => { const s=[...xs].sort((a,b)=>a-b); return s[s.length>>1].toFixed(0); };
const port = +process.argv[2];
const a = await pingFromChild({host:'127.0.0.1',port:16399},3000), b = await pingFromChild({host:'127.0.0.1',port},3000);
for (const [lab,xs] of [['direct',a],['proxy',b]]) console.log(lab, [0,500,1000,2000,2900].map(i=>med(xs.slice(i,i+100))).join(' '));
