// The battle report's 3D viewer: plays the replay's animated glTF (embedded in the page as
// base64) with three.js, a play/pause button, a scrubber and a speed choice, and keeps the
// log beside it in step with the time shown. Opened from disk (file://) with no network:
// three.js comes from the page's import map of data: URLs.
//
// Times: simulated seconds of the replay (the log's data-t); the animation's time 0 is the
// viewer's data-start. The URL hash "#t=2.5" shows second 2.5 (paused).
// For tests and tools: window.reportViewer = {ready, readyMs, time, seek(t), play(), pause(),
// state(), screenBox(key), screenPoint([x, y, z])}; <html data-viewer="ready"> once the model is on screen, or
// data-viewer="error" (the reason in #viewer-status).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const root = document.getElementById('viewer');
const canvas = document.getElementById('view3d');
const statusBox = document.getElementById('viewer-status');
const playButton = document.getElementById('play');
const scrub = document.getElementById('scrub');
const clock = document.getElementById('clock');
const speedSelect = document.getElementById('speed');
const liveLog = document.getElementById('live-log');
const start = parseFloat(root.dataset.start || '0');
const api = { ready: false, time: start, marks: { module: performance.now() } };
window.reportViewer = api;

function fail(message) {
  statusBox.textContent = 'The 3D view could not be shown: ' + message;
  statusBox.hidden = false;
  document.documentElement.dataset.viewer = 'error';
}

// ---------------------------------------------------------------- the log in step
const timed = [];  // [t, element] of every line with a time, in document order
for (const el of document.querySelectorAll('[data-t]')) {
  if (el !== root) timed.push([parseFloat(el.dataset.t), el]);
}
timed.sort((a, b) => a[0] - b[0]);
let shownUpTo = -2;

function syncLog(t) {
  // index of the last line at or before t (binary search)
  let lo = 0, hi = timed.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (timed[mid][0] <= t + 1e-6) lo = mid + 1; else hi = mid;
  }
  const last = lo - 1;
  if (last === shownUpTo) return;
  shownUpTo = last;
  let current = null;
  timed.forEach(([, el], i) => {
    el.classList.toggle('past', i <= last);
    el.classList.remove('now');
  });
  if (last >= 0) {
    const tNow = timed[last][0];
    for (let i = last; i >= 0 && timed[i][0] === tNow; i--) {
      timed[i][1].classList.add('now');
      if (liveLog.contains(timed[i][1])) current = current || timed[i][1];
    }
  }
  if (current) {  // scroll the live log (not the page) to the line now
    const top = current.offsetTop - liveLog.offsetTop;
    liveLog.scrollTop = Math.max(0, top - liveLog.clientHeight / 2);
  }
}

// ---------------------------------------------------------------- three.js scene
let renderer;
try {
  renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
} catch (err) {
  fail('this browser has no WebGL (' + err.message + ')');
  throw err;
}
renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xb3cde0);
scene.add(new THREE.HemisphereLight(0xeef4ff, 0x504a40, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
sun.position.set(0.6, 1.0, 0.45);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 16 / 9, 0.005, 100);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;

let mixer = null, action = null, duration = 0, bodies = [];
let playing = false, lastFrame = null;

function resize() {
  const w = canvas.clientWidth || 800, h = canvas.clientHeight || 450;
  if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) ||
      canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
}

function frameBodies() {
  const box = new THREE.Box3();
  for (const b of bodies) box.expandByObject(b);
  if (box.isEmpty()) box.setFromObject(scene);
  const size = box.getSize(new THREE.Vector3());
  const centre = box.getCenter(new THREE.Vector3());
  const radius = Math.max(size.length() / 2, 0.1);
  const dist = radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2)) * 0.9;
  const dir = new THREE.Vector3(0.5, 0.55, 1.0).normalize();  // front-right, above (Y up)
  camera.position.copy(centre).addScaledVector(dir, dist);
  camera.near = dist / 100;
  camera.far = dist * 20;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
}

function seek(t) {
  const tt = Math.min(Math.max(t - start, 0), duration);
  api.time = start + tt;
  if (action) {
    action.reset();
    action.play();
    action.time = Math.min(tt, Math.max(duration - 1e-6, 0));
    mixer.update(0);
  }
  scrub.value = String(tt);
  clock.textContent = api.time.toFixed(2) + ' s';
  syncLog(api.time);
}

function setPlaying(on) {
  playing = on;
  playButton.textContent = on ? 'Pause' : 'Play';
  playButton.setAttribute('aria-pressed', on ? 'true' : 'false');
  lastFrame = null;
}

function loop(now) {
  resize();
  if (playing) {
    if (lastFrame !== null) {
      const speed = parseFloat(speedSelect.value || '1');
      const next = api.time + (now - lastFrame) / 1000 * speed;
      if (next >= start + duration) { seek(start + duration); setPlaying(false); }
      else seek(next);
    }
    lastFrame = now;
  }
  controls.update();
  renderer.render(scene, camera);
  requestAnimationFrame(loop);
}

function hashTime() {
  const m = /(?:^#|&)t=([0-9.]+)/.exec(window.location.hash);
  return m ? parseFloat(m[1]) : null;
}

api.seek = (t) => { setPlaying(false); seek(t); renderer.render(scene, camera); return api.time; };
api.play = () => { if (api.time >= start + duration - 1e-6) seek(start); setPlaying(true); };
api.pause = () => setPlaying(false);
api.state = () => ({
  time: api.time, duration, start,
  visible: bodies.filter((b) => b.scale.x > 0.5).map((b) => (b.userData.key || b.name)),
  hidden: bodies.filter((b) => b.scale.x <= 0.5).map((b) => (b.userData.key || b.name)),
});
api.screenBox = (key) => {  // the body's box on the canvas, CSS pixels from its top left
  const body = bodies.find((b) => (b.userData.key || b.name) === key);
  if (!body) return null;
  const box = new THREE.Box3().setFromObject(body);
  const r = canvas.getBoundingClientRect();
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const x of [box.min.x, box.max.x]) for (const y of [box.min.y, box.max.y])
    for (const z of [box.min.z, box.max.z]) {
      const p = new THREE.Vector3(x, y, z).project(camera);
      const px = (p.x + 1) / 2 * r.width, py = (1 - p.y) / 2 * r.height;
      x0 = Math.min(x0, px); x1 = Math.max(x1, px); y0 = Math.min(y0, py); y1 = Math.max(y1, py);
    }
  return { x0, y0, x1, y1, left: r.left + window.scrollX, top: r.top + window.scrollY };
};

api.screenPoint = (p) => {  // a world point (inches, Z up) on the canvas, CSS pixels
  const table = scene.getObjectByName('table');
  const v = new THREE.Vector3(p[0], p[1], p[2]);
  if (table) v.applyMatrix4(table.matrixWorld);
  v.project(camera);
  const r = canvas.getBoundingClientRect();
  return { x: (v.x + 1) / 2 * r.width, y: (1 - v.y) / 2 * r.height };
};

playButton.addEventListener('click', () => (playing ? api.pause() : api.play()));
scrub.addEventListener('input', () => { setPlaying(false); seek(start + parseFloat(scrub.value)); });
window.addEventListener('hashchange', () => { const t = hashTime(); if (t !== null) api.seek(t); });
for (const el of document.querySelectorAll('[data-seek]')) {
  el.addEventListener('click', (ev) => {
    ev.preventDefault();
    api.seek(parseFloat(el.dataset.seek));
    root.scrollIntoView({ block: 'start' });
  });
}

async function load() {
  const text = document.getElementById('glb-data').textContent.trim();
  const response = await fetch('data:model/gltf-binary;base64,' + text);
  const buffer = await response.arrayBuffer();
  api.marks.decoded = performance.now();
  const gltf = await new GLTFLoader().parseAsync(buffer, '');
  api.marks.parsed = performance.now();
  scene.add(gltf.scene);
  const table = gltf.scene.getObjectByName('table');
  bodies = (table ? table.children : []).filter((o) => o.name !== 'battlefield');
  if (gltf.animations.length) {
    mixer = new THREE.AnimationMixer(gltf.scene);
    action = mixer.clipAction(gltf.animations[0]);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    duration = gltf.animations[0].duration;
  }
  duration = Math.max(duration, parseFloat(root.dataset.duration || '0'));
  scrub.max = String(duration);
  scrub.step = 'any';
  resize();
  seek(start);
  frameBodies();
  const t = hashTime();
  seek(t === null ? start : t);
  renderer.render(scene, camera);
  statusBox.hidden = true;
  api.readyMs = performance.now();  // milliseconds since the page began to load
  api.ready = true;
  document.documentElement.dataset.viewer = 'ready';
  requestAnimationFrame(loop);
}

load().catch((err) => fail(err && err.message ? err.message : String(err)));
