import path from 'node:path';
import { fileURLToPath } from 'node:url';
import remarkGfm from 'remark-gfm';
import remarkValidateLinks from 'remark-validate-links';

const root = path.dirname(fileURLToPath(import.meta.url));

/** A relative link that leaves the repository resolves only on a machine laid out as the author's. */
function remarkLinksStayInside() {
  return (tree, file) => {
    const visit = (node) => {
      if (['link', 'image', 'definition'].includes(node.type) && !/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(node.url)) {
        const target = path.resolve(file.cwd, file.dirname ?? '.', decodeURI(node.url.split('#')[0]));
        if (path.relative(root, target).startsWith('..')) file.message(`Link leaves the repository: \`${node.url}\``, node, 'links-stay-inside');
      }
      for (const child of node.children ?? []) visit(child);
    };
    visit(tree);
  };
}

// `pnpm check:links`: every relative link of the docs names a file of the repository, and every
// anchor a heading (remark-validate-links checks nothing external: the machines are offline).
export default {
  plugins: [remarkGfm, [remarkValidateLinks, { repository: false }], remarkLinksStayInside],
};
