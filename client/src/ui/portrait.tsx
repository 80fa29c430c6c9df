/**
 * A participant's face as a small picture, for the brief: their avatar GLB rendered once, head and
 * shoulders from the front, by one shared off-screen renderer; the pictures are cached by avatar.
 * Until it is drawn (or if WebGL is unavailable) the person's initials stand in.
 *
 * ```tsx
 * <Portrait avatar="avatar-07" name="Maya Chen" />
 * ```
 */
import { useEffect, useState } from 'react';
import { AmbientLight, DirectionalLight, PerspectiveCamera, Scene, Vector3, WebGLRenderer, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { initials } from './initials';

const SIZE = 96;
const pictures = new Map<string, Promise<string>>();
let renderer: WebGLRenderer | null = null;

/** The avatar's head bone (Ready Player Me / Mixamo naming). */
const headOf = (root: Object3D): Object3D | undefined => root.getObjectByName('Head');

const draw = async (avatar: string): Promise<string> => {
  const gltf = await new GLTFLoader().loadAsync(`/avatars/${avatar}.glb`);
  renderer ??= new WebGLRenderer({ antialias: true, alpha: true, preserveDrawingBuffer: true });
  renderer.setSize(SIZE, SIZE, false);
  const scene = new Scene();
  const key = new DirectionalLight(0xffffff, 2.2);
  key.position.set(0.5, 2, 2);
  scene.add(new AmbientLight(0xffffff, 1.6), key);
  scene.add(gltf.scene);
  gltf.scene.updateMatrixWorld(true);
  const head = headOf(gltf.scene)?.getWorldPosition(new Vector3()) ?? new Vector3(0, 1.6, 0);
  // The avatar faces +Z: the camera stands in front of the face, a little above the head bone's root.
  const camera = new PerspectiveCamera(28, 1, 0.01, 10);
  camera.position.set(head.x, head.y + 0.07, head.z + 0.75);
  camera.lookAt(head.x, head.y + 0.05, head.z);
  renderer.render(scene, camera);
  return renderer.domElement.toDataURL('image/png');
};

const pictureOf = (avatar: string): Promise<string> => {
  let picture = pictures.get(avatar);
  if (!picture) {
    picture = draw(avatar);
    pictures.set(avatar, picture);
    picture.catch(() => pictures.delete(avatar));
  }
  return picture;
};

export const Portrait = ({ avatar, name }: { avatar: string | null; name: string }) => {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!avatar) return;
    let live = true;
    pictureOf(avatar).then(
      (url) => live && setSrc(url),
      (error: Error) => console.warn(`no portrait of ${avatar}: ${error.message}`),
    );
    return () => {
      live = false;
    };
  }, [avatar]);
  return src ? <img className="portrait" src={src} alt={`${name}'s face`} width={SIZE / 2} height={SIZE / 2} /> : <span className="portrait initials" aria-hidden="true">{initials(name)}</span>;
};
