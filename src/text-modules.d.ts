/** C sources imported as text (`with { type: "text" }`), compiled at run time (`src/toolsets/fs/native-compile.ts`). */
declare module "*.c" {
  const text: string;
  export default text;
}
