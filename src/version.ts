import packageJson from "../package.json";

export const PRODUCT_NAME = "Switchboard";
export const VERSION: string = packageJson.version;
